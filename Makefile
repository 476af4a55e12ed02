# walload -- PGXS build.  Honours PG_CONFIG (e.g. make PG_CONFIG=/usr/lib/postgresql/16/bin/pg_config).

MODULE_big = walload
# in layer order (src/types.h): each calls only those below it
OBJS = \
	src/walload.o \
	src/diagnose.o \
	src/whatif.o \
	src/views.o \
	src/hooks.o \
	src/accumulator.o \
	src/strategy.o \
	src/observe.o \
	src/model.o \
	src/sizing.o \
	src/calibrate.o \
	src/cost.o \
	src/persist.o \
	src/store.o \
	src/metrics.o \
	src/measure.o \
	src/settings.o \
	src/compat.o

EXTENSION = walload
DATA = walload--1.1.sql walload--1.0.sql walload--1.0--1.1.sql walload--1.1--1.2.sql walload--1.2--1.3.sql walload--1.3--1.4.sql walload--1.4--1.5.sql walload--1.5--1.6.sql walload--1.6--1.7.sql walload--1.7--1.8.sql walload--1.8--1.9.sql walload--1.9--1.10.sql walload--1.10--1.11.sql
PGFILEDESC = "walload - where the time of a bulk load went"

# The library's version has one source, META.json's "version" (the release):
# walload_build_info() and walload_info.library_version show it, make dist
# names the zip with it.  Read before PGXS, which expands PG_CPPFLAGS at once.
walload_dir := $(dir $(lastword $(MAKEFILE_LIST)))
DISTVERSION := $(shell sed -nE '0,/^   "version"/s/^   "version": *"([^"]*)".*/\1/p' $(walload_dir)META.json)
PG_CPPFLAGS = -I$(srcdir)/src -DWALLOAD_VERSION='"$(DISTVERSION)"'
# Calls between walload's own files bind inside the library, as the hidden
# visibility of 16's PGXS makes them; 15's does not, and every such call on
# a statement's path went through the PLT.  Nothing outside is meant to
# replace a walload function.
PG_CFLAGS = -fno-semantic-interposition

# pg_regress and isolation tests: run against a server started with
#   shared_preload_libraries = 'walload,pg_stat_statements'
REGRESS = walload_interface walload_errors walload_hostile walload_update walload_harm walload_report walload_findings
ISOLATION = walload_2pc walload_reset_open walload_blocked
ISOLATION_OPTS = --load-extension=walload

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)
ifeq ($(PORTNAME),linux)
SHLIB_LINK += -Wl,-Bsymbolic
endif

# every object depends on the headers (PGXS does not track them)
$(OBJS): $(wildcard $(srcdir)/src/*.h)
src/views.o: $(walload_dir)META.json

# The PGXN release zip: walload-VERSION.zip, VERSION from META.json (the
# extension's default_version as semver), files as committed at HEAD (less
# what .gitattributes marks export-ignore).
dist:
	git -C $(srcdir) archive --format=zip --prefix=walload-$(DISTVERSION)/ -o $(CURDIR)/walload-$(DISTVERSION).zip HEAD
	@echo walload-$(DISTVERSION).zip
.PHONY: dist
