#!/usr/bin/env python3
"""Validates a T4 results file against the published T4 results schema.

usage: validate_t4.py SCHEMA RESULTS
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    sys.exit("validate_t4.py: python3-jsonschema is not installed (apt-get install python3-jsonschema)")


def main(schema_file, results_file):
    with open(schema_file, encoding="utf-8") as f:
        schema = json.load(f)
    with open(results_file, encoding="utf-8") as f:
        results = json.load(f)
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    errors = sorted(validator_class(schema).iter_errors(results), key=lambda e: list(e.absolute_path))
    for error in errors[:10]:
        print(f"{results_file}: {'/'.join(map(str, error.absolute_path))}: {error.message}", file=sys.stderr)
    if errors:
        sys.exit(f"{len(errors)} schema violations")
    if not results.get("results"):
        sys.exit(f"{results_file}: no results")  # an empty file would pass the schema
    print(f"{results_file}: {len(results['results'])} results valid against {validator_class.__name__} {schema['$id']}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
