# tests: each part owns its fragment.
include tests/libam/local.mk
include tests/pvm3/local.mk
include tests/integration/local.mk
EXTRA_DIST += tests/run-bounded.sh
