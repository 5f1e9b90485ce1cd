# collide: `make` builds the module for Lua 5.4; `make test` installs what is missing and runs
# every check; `make demo` runs the tour. See README.md for the full list of targets.

CC      ?= cc
OPT     ?= -O2
WARN    = -Wall -Wextra -pedantic -Werror
CFLAGS  = -std=c99 $(OPT) -fPIC -fvisibility=hidden $(WARN) $(EXTRA_CFLAGS)
LDFLAGS = -shared -lm $(EXTRA_LDFLAGS)

CORE_SRC = $(sort $(wildcard csrc/core/*.c))
CORE_HDR = $(sort $(wildcard csrc/core/*.h))
BIND_SRC = $(sort $(wildcard csrc/bind/*.c))
BIND_HDR = $(sort $(wildcard csrc/bind/*.h))
SRC      = $(CORE_SRC) $(BIND_SRC)
HDR      = $(CORE_HDR) $(BIND_HDR)

# Lua versions: build/<name>/collide.so where <name> is the interpreter and pkg-config name.
LUA      ?= lua5.4
VERSIONS = lua5.4 luajit lua5.1 lua5.2 lua5.3
# Versions whose interpreter and headers are both installed here.
HAVE     = $(foreach v,$(VERSIONS),$(if $(and $(shell command -v $(v) 2>/dev/null),$(shell pkg-config --exists $(v) 2>/dev/null && echo y)),$(v)))

SUDO     = $(shell [ "$$(id -u)" = 0 ] || echo sudo)
PKGS_BASE = lua5.4 liblua5.4-dev lua-busted pkg-config
PKGS_TEST = $(PKGS_BASE) luajit libluajit-5.1-dev lua5.1 liblua5.1-0-dev luarocks
PKGS_LOVE = love xvfb xauth
PKGS_CHECK = valgrind clang libclang-rt-14-dev

LUAENV = LUA_PATH="./lua/?.lua;./lua/?/init.lua;./spec/?.lua;;"

.PHONY: check-fused all build test demo love love-bump love-walker bench check check-core clean deps-base deps-test deps-love deps-check \
        test-lua test-lua55 test-love test-rockspec

all: build/$(LUA)/collide.so
	@cp build/$(LUA)/collide.so collide.so
	@echo "built collide.so for $(LUA)"

build: $(foreach v,$(HAVE),build/$(v)/collide.so)

build/%/collide.so: $(SRC) $(HDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $$(pkg-config --cflags $*) -Icsrc/core -o $@ $(SRC) $(LDFLAGS)

# ---- dependencies: install only what is missing (Debian) ----
define install_missing
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi
endef
deps-base: ; $(call install_missing,$(PKGS_BASE))
deps-test: ; $(call install_missing,$(PKGS_TEST))
deps-love: ; $(call install_missing,$(PKGS_LOVE) $(PKGS_TEST))
deps-check: ; $(call install_missing,$(PKGS_CHECK) $(PKGS_TEST))

# ---- tests ----
# Everything: the C core test, the busted suite on every installed Lua, LÖVE, then hardening.
test: deps-test deps-love deps-check
	$(MAKE) --no-print-directory check-core
	$(MAKE) --no-print-directory test-lua
	$(MAKE) --no-print-directory test-lua55
	$(MAKE) --no-print-directory test-rockspec
	$(MAKE) --no-print-directory test-love
	$(MAKE) --no-print-directory check

# The busted suite on each installed Lua (5.4 and LuaJIT always; 5.1, 5.2, 5.3 where installed),
# all at once (one process each: they share no files); each one's output is kept in
# build/log/busted-<lua>.log and printed whole, in order, when all have ended.
test-lua: build
	@mkdir -p build/log; \
	for v in $(HAVE); do \
	  ( echo "== busted on $$v"; \
	    LUA_CPATH="./build/$$v/?.so" $$v -e 'local c = require "collide"; assert(c.World():add(1, c.AABB(0,0,0,1,1,1)))' && \
	    LUA_CPATH="./build/$$v/?.so;;" $(LUAENV) busted --lua=$$v --cpath="./build/$$v/?.so" spec; \
	    echo $$? > build/log/busted-$$v.rc ) > build/log/busted-$$v.log 2>&1 & \
	done; wait; failed=""; \
	for v in $(HAVE); do \
	  cat build/log/busted-$$v.log; \
	  [ "$$(cat build/log/busted-$$v.rc 2>/dev/null)" = 0 ] || failed="$$failed $$v"; \
	done; \
	if [ -n "$$failed" ]; then echo "test-lua: FAILED on$$failed"; exit 1; fi

# Lua 5.5 (no Debian package): built from its source tarball into build/lua5.5/src when the
# tarball is there, collide built against it, and the whole suite run through spec/run.lua (the
# LÖVE suite's busted stand-in: busted's C dependencies exist only for Debian's Luas).
LUA55_TAR ?= ../shared/lua-5.5.0.tar.gz
LUA55_SRC = build/lua5.5/src

build/lua5.5/lua:
	@[ -f "$(LUA55_TAR)" ] || { echo "$(LUA55_TAR) not found (Lua 5.5's source tarball)"; exit 1; }
	rm -rf $(LUA55_SRC) && mkdir -p $(LUA55_SRC)
	tar xzf $(LUA55_TAR) -C $(LUA55_SRC) --strip-components=1
	$(MAKE) -C $(LUA55_SRC) MYCFLAGS="-std=c99 -DLUA_USE_LINUX" MYLIBS="-Wl,-E -ldl" >build/lua5.5/make.log 2>&1 \
	  || { tail -20 build/lua5.5/make.log; exit 1; }
	cp $(LUA55_SRC)/lua $@

build/lua5.5/collide.so: $(SRC) $(HDR) build/lua5.5/lua
	$(CC) $(CFLAGS) -I$(LUA55_SRC) -Icsrc/core -o $@ $(SRC) $(LDFLAGS)

test-lua55:
	@if [ -f "$(LUA55_TAR)" ]; then \
	  $(MAKE) --no-print-directory build/lua5.5/collide.so && echo "== spec/run.lua on lua5.5" && \
	  LUA_CPATH="./build/lua5.5/?.so" $(LUAENV) COLLIDE_LUA=./build/lua5.5/lua ./build/lua5.5/lua spec/run.lua; \
	else echo "== Lua 5.5 skipped: $(LUA55_TAR) not found"; fi

# The rockspec names every C source, and `luarocks make` with Debian's luarocks really installs a
# module that loads and answers.
ROCKSPEC = rockspec/collide-scm-1.rockspec
test-rockspec:
	@for f in $(SRC); do grep -q "\"$$f\"" $(ROCKSPEC) || { echo "$(ROCKSPEC) does not list $$f"; exit 1; }; done
	@rm -rf build/rocktree
	luarocks --lua-version=5.4 --tree=build/rocktree make $(ROCKSPEC) >build/rockspec.log 2>&1 || { cat build/rockspec.log; exit 1; }
	@rm -f csrc/core/*.o csrc/bind/*.o
	lua5.4 -e 'package.cpath = "build/rocktree/lib/lua/5.4/?.so"; package.path = "build/rocktree/share/lua/5.4/?.lua"' \
	  -e 'local c = require "collide"; assert(c.AABB(0,0,0,1,1,1):contains(1,1,1)); require "collide.love"; print("rockspec: installed and loaded collide " .. c._VERSION)'

# The plain-C test of the core: no Lua involved.
check-core: build/check-core build/check-world build/check-world-slice8 build/check-inline build/check-mesh build/check-narrow build/check-trisweep \
	    build/check-tree-keep build/check-tree-cost
	./build/check-core
	./build/check-narrow
	./build/check-world
	./build/check-world-slice8
	./build/check-tree-keep 1 4000
	./build/check-tree-keep 2 4000
	./build/check-tree-cost
	./build/check-inline
	./build/check-mesh
	./build/check-trisweep
	$(MAKE) --no-print-directory check-fused

# The core built as compilers that fuse multiply-adds build it (GNU C mode, an FMA target: x86-64-v3
# where the CPU has FMA and AVX2, arm64 always), with each of clang and gcc that is installed:
# cl.h must keep every expression rounded as written (csrc/test/test_fused.c).
check-fused:
	@mkdir -p build; arch=$$(uname -m); flags=""; \
	if [ "$$arch" = x86_64 ]; then \
	  if grep -qw fma /proc/cpuinfo 2>/dev/null && grep -qw avx2 /proc/cpuinfo; then flags="-march=x86-64-v3"; \
	  else echo "check-fused: skipped (this x86-64 CPU has no FMA)"; exit 0; fi; \
	elif [ "$$arch" != aarch64 ] && [ "$$arch" != arm64 ]; then echo "check-fused: skipped ($$arch)"; exit 0; fi; \
	ran=0; for c in clang gcc; do \
	  command -v $$c >/dev/null 2>&1 || continue; \
	  echo "check-fused: $$c -std=gnu99 -O2 $$flags"; \
	  $$c -std=gnu99 -O2 $$flags -Wall -Wextra -Werror -Icsrc/core -o build/check-fused-$$c csrc/test/test_fused.c $(CORE_SRC) -lm || exit 1; \
	  ./build/check-fused-$$c || exit 1; ran=1; \
	done; [ $$ran = 1 ] || echo "check-fused: skipped (neither clang nor gcc)"

build/check-core: csrc/test/test_core.c csrc/test/check.h $(CORE_SRC) $(CORE_HDR)
	@mkdir -p $(@D)
	$(CC) -std=c99 -O1 -g -Wall -Wextra -pedantic -Werror -Icsrc/core -o $@ csrc/test/test_core.c $(CORE_SRC) -lm

# The tree's kept rebuild blocks under random operations across CL_TREE_KEEP_BYTES, with a
# size-checking, failure-injecting allocator (review rev21; includes tree.c for its private record).
build/check-tree-keep: csrc/test/test_tree_keep.c csrc/core/tree.c $(CORE_HDR)
	@mkdir -p $(@D)
	$(CC) -std=c99 -O2 -g -Wall -Wextra -pedantic -Werror -Icsrc/core -o $@ csrc/test/test_tree_keep.c -lm

# The whole rebuild's noted cost equals the built tree's (review rev22: stale child2 reads).
build/check-tree-cost: csrc/test/test_tree_cost.c csrc/core/tree.c $(CORE_HDR)
	@mkdir -p $(@D)
	$(CC) -std=c99 -O2 -g -Wall -Wextra -pedantic -Werror -Icsrc/core -o $@ csrc/test/test_tree_cost.c csrc/core/tree.c -lm

build/check-world: csrc/test/test_world.c $(CORE_SRC) $(CORE_HDR)
	@mkdir -p $(@D)
	$(CC) -std=c99 -O2 -g -Wall -Wextra -pedantic -Werror -Icsrc/core -o $@ csrc/test/test_world.c $(CORE_SRC) -lm

# The same with a whole rebuild's leaf indices copied into the items 8 a traversal (cl_world.lf,
# LEAF_SLICE): every World over 8 slots defers the copy, so every test runs with it under way.
build/check-world-slice8: csrc/test/test_world.c $(CORE_SRC) $(CORE_HDR)
	@mkdir -p $(@D)
	$(CC) -std=c99 -O2 -g -DLEAF_SLICE=8 -Wall -Wextra -pedantic -Werror -Icsrc/core -o $@ csrc/test/test_world.c $(CORE_SRC) -lm

build/check-trisweep: csrc/test/test_trisweep.c csrc/test/check.h $(CORE_SRC) $(CORE_HDR)
	@mkdir -p $(@D)
	$(CC) -std=c99 -O2 -g -Wall -Wextra -pedantic -Werror -Icsrc/core -o $@ csrc/test/test_trisweep.c $(CORE_SRC) -lm

build/check-mesh: csrc/test/test_mesh.c csrc/test/check.h $(CORE_SRC) $(CORE_HDR)
	@mkdir -p $(@D)
	$(CC) -std=c99 -O2 -g -Wall -Wextra -pedantic -Werror -Icsrc/core -o $@ csrc/test/test_mesh.c $(CORE_SRC) -lm

build/check-narrow: csrc/test/test_narrow.c csrc/test/check.h $(CORE_SRC) $(CORE_HDR)
	@mkdir -p $(@D)
	$(CC) -std=c99 -O2 -g -Wall -Wextra -pedantic -Werror -Icsrc/core -o $@ csrc/test/test_narrow.c $(CORE_SRC) -lm

# The World's inline copies of core tests, checked against the core (test_inline.c includes the
# csrc/core/world*.c files itself, so the ones it includes are left out of the link).
INLINE_SRC = $(addprefix csrc/core/,$(shell sed -n 's/^\#include "\(world[a-z_]*\.c\)"$$/\1/p' csrc/test/test_inline.c))
build/check-inline: csrc/test/test_inline.c $(CORE_SRC) $(CORE_HDR)
	@mkdir -p $(@D)
	$(CC) -std=c99 -O2 -g -Wall -Wextra -pedantic -Werror -Icsrc/core -o $@ csrc/test/test_inline.c $(filter-out $(INLINE_SRC),$(CORE_SRC)) -lm

# The spec suite and demo inside real LÖVE 11.4 (LuaJIT), headless; screenshot test under Xvfb.
test-love: build/luajit/collide.so
	./spec/love/run.sh

# Hardening: sanitizers, valgrind, fuzzing, API abuse (see spec/check/).
check:
	./spec/check/run.sh

demo: deps-base build/lua5.4/collide.so
	LUA_CPATH="./build/lua5.4/?.so;;" $(LUAENV) lua5.4 examples/tour.lua

love: deps-love build/luajit/collide.so
	cp build/luajit/collide.so examples/love/collide.so
	love examples/love

# The collide.bump platformer (a game written for bump.lua) in LÖVE.
love-bump: deps-love build/luajit/collide.so
	love examples/love-bump --so "$(CURDIR)/build/luajit/collide.so"

# The 3D walker: a character on an .obj level, mouse picking, frustum culling, in LÖVE.
love-walker: deps-love build/luajit/collide.so
	love examples/love-walker --so "$(CURDIR)/build/luajit/collide.so"

bench: deps-test build
	./bench/run.sh

clean:
	rm -rf build collide.so examples/love/collide.so
