#!/usr/bin/env bash
# The uprobe oracle (see README.md here). Prints TAP; run as root.
exec python3 "$(dirname "$0")/oracle.py" "$@"
