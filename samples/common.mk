# Shared by every sample's Makefile (set PROG first). Built for COZ 0.2.2 (Debian coz-profiler):
# DWARF 4 without location views, otherwise libelfin aborts (DWARF 5) or the profile comes out
# empty (locviews).
CC      = gcc
CFLAGS  = -g -gdwarf-4 -gno-variable-location-views -O1 -pthread -Wall -Wextra
LDLIBS  = -ldl

build/$(PROG): $(PROG).c Makefile ../common.mk
	@mkdir -p build
	$(CC) $(CFLAGS) -o $@ $(PROG).c $(LDLIBS)

.PHONY: clean
clean:
	rm -rf build
