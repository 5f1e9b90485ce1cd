/* collide core: the character controller (collide.Character). A kinematic collide-and-slide on
 * top of cl_world_move: walking along the ground, walkable slopes that never drag it down,
 * steeper ones that are walls, step-up, ground snap and moving platforms. Allocates only through
 * the allocator given to cl_char_init; never raises. */
#ifndef CL_CHARACTER_H
#define CL_CHARACTER_H

#include "world.h"

/// A character's settings and the state its last move left.
typedef struct cl_char {
    cl_vec3 up;                 /* unit */
    double cosmax;              /* a surface is walkable when its normal . up >= cosmax */
    double step, snap;          /* >= 0 */
    int ground;                 /* the item stood on after the last move, -1 for none */
    double gseq;                /* its add order (a removed and re-added slot is not it) */
    cl_vec3 gref, gn;           /* its reference point then (platform carry), the ground normal */
    cl_col *cols; int ncols, colcap; /* the collisions of the last move */
    cl_alloc alloc;
    void *ud;
} cl_char;

/// Initialises a character (up unit, maxslope in [0, pi/2], step and snap >= 0); allocates
/// nothing.
CL_API void cl_char_init(cl_char *c, cl_vec3 up, double maxslope, double step, double snap,
                         cl_alloc alloc, void *ud);
/// Frees the character's collision buffer.
CL_API void cl_char_free(cl_char *c);
/// Moves live item id of w as character c by up to d (responses as cl_world_move): carried first
/// by the ground it stood on if that moved, then walking with step-up and snap, or through the
/// air. *actual gets the displacement made, the collisions go to c->cols[0..n-1] and the ground
/// state is updated. Returns n, or CL_ENOMEM with the item back where it started. respond may
/// not return (longjmp): the item may then be part way; the caller restores it.
CL_API int cl_char_move(cl_char *c, cl_world *w, int id, cl_vec3 d, cl_respond respond,
                        void *ctx, cl_vec3 *actual);
/// 1 if the character stood on live ground after its last move (then *item and *n).
CL_API int cl_char_grounded(const cl_char *c, const cl_world *w, int *item, cl_vec3 *n);

#endif
