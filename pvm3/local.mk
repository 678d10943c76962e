# pvm3: owned by the pvm3 layer
