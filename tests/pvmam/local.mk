# pvmam: its files call each other in layers (no call circle of more
# than two files), checked on the built objects.
TESTS += tests/pvmam/call-circles.sh
EXTRA_DIST += tests/pvmam/call-circles.sh
