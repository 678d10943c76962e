#!/bin/sh
exec "$top_builddir/tests/libam/test_am" tcp
