# tests: each part owns its fragment.
include tests/libam/local.mk
include tests/pvm3/local.mk
include tests/pvmam/local.mk
include tests/integration/local.mk
include tests/fuzz/local.mk
EXTRA_DIST += tests/run-bounded.sh

# the manual pages render without warnings and cover what they must
TESTS += tests/man.sh
EXTRA_DIST += tests/man.sh

# memcheck over our own programs (tests/valgrind.sh); not with sanitizers.
if !SANITIZERS
TESTS += tests/valgrind.sh
endif
EXTRA_DIST += tests/valgrind.sh
include tests/console/local.mk
include tests/torture/local.mk
