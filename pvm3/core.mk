# pvm3 core: add to PVM3_CORE_SOURCES
