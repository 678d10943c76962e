# pvmam: AM route for pvm3 (issue 5). Sources go into libpvm3am.
PVMAM_SOURCES =
