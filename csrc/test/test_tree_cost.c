/* rev22 reproducer: cl_tree_rebuild's built_cost (the World's refcost) counts some internal nodes
 * twice: build_run reads a split node's child2 before writing it, and stale pool contents equal
 * to its first child's index fit the node (and ancestors) early, adding their costs again. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include "tree.h"
static void *al(void *ud, void *p, size_t o, size_t n) { (void)ud; (void)o; if (!n) { free(p); return NULL; } return realloc(p, n); }
static unsigned long long s;
static double ur(void) { s = s * 6364136223846793005ull + 1442695040888963407ull; return (double)(s >> 11) / 9007199254740992.0; }
int main(void) {
    int seed, i, r, found = 0, runs = 0;
    for (seed = 1; seed <= 300; seed++) {
        cl_tree t;
        int leaf[64], live[64];
        s = (unsigned long long)seed;
        cl_tree_init(&t, al, NULL);
        for (i = 0; i < 64; i++) {
            double x = ur() * 100, y = ur() * 100, z = ur() * 100;
            cl_aabb b = {{x, y, z}, {x + 1, y + 1, z + 1}};
            leaf[i] = cl_tree_insert(&t, &b, i);
            live[i] = 1;
        }
        for (r = 0; r < 3; r++) {
            double c;
            cl_tree_rebuild(&t);
            runs++;
            c = cl_tree_cost(&t);
            if (fabs(c - t.built_cost) > 1e-9 * c) {
                if (found++ < 3)
                    printf("seed %d rebuild %d: %d leaves, built_cost %.17g, cl_tree_cost %.17g (+%.1f%%), validate %d\n",
                           seed, r + 1, t.leaves, t.built_cost, c, 100 * (t.built_cost / c - 1), cl_tree_validate(&t));
            }
            for (i = 0; i < t.cap; i++) if (t.hgt[i] == 0) leaf[t.nodes[i].child2] = i;
            for (i = 0; i < 64; i++) {      /* churn: a quarter removed, some re-added pending */
                if (live[i] && ur() < 0.25) { cl_tree_remove(&t, leaf[i]); live[i] = 0; }
                else if (!live[i] && ur() < 0.5) {
                    double x = ur() * 100, y = ur() * 100, z = ur() * 100;
                    cl_aabb b = {{x, y, z}, {x + 1, y + 1, z + 1}};
                    leaf[i] = cl_tree_insert_lazy(&t, &b, i);
                    live[i] = 1;
                }
            }
        }
        cl_tree_free(&t);
    }
    printf("%d of %d whole rebuilds with built_cost != cl_tree_cost\n", found, runs);
    return found != 0;
}
