# libam: owned by the libam layer
