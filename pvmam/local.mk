# pvmam: owned by the pvmam layer
