#!/usr/bin/env python3
"""validate.py FILE.json...: checks ngx result files against the published
schema (schema/ngx-result.schema.json, python3-jsonschema). Prints one line
per violation, naming the file and the field's path; exits 1 on any, 2 when
a file cannot be read, 0 when every file conforms. The test helpers call it
on every JSON file they check."""
import json
import os
import sys

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ngx-result.schema.json")


def main():
    try:
        import jsonschema
    except ImportError:
        print("validate.py: python3-jsonschema is missing (apt-get install python3-jsonschema; bash tools/test-deps.sh installs it)", file=sys.stderr)
        return 2
    with open(SCHEMA) as f:
        schema = json.load(f)
    validator = jsonschema.Draft202012Validator(schema)
    failures = 0
    for path in sys.argv[1:]:
        try:
            with open(path) as f:
                document = json.load(f)
        except (OSError, ValueError) as error:
            print(f"{path}: cannot read the JSON: {error}", file=sys.stderr)
            return 2
        for error in sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path)):
            where = "/".join(str(p) for p in error.absolute_path) or "(top)"
            print(f"{path}: {where}: {error.message[:300]}")
            failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
