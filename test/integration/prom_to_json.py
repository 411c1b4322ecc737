#!/usr/bin/python3
# Prometheus exposition text on stdin -> JSON on stdout, through
# prometheus_client's own parser (Debian python3-prometheus-client):
# [{"family", "type", "name", "labels", "value"}, ...].  Exits 1 when the
# text does not parse.
import json
import sys

from prometheus_client.parser import text_string_to_metric_families

out = []
for fam in text_string_to_metric_families(sys.stdin.read()):
    for s in fam.samples:
        out.append({"family": fam.name, "type": fam.type, "name": s.name, "labels": s.labels, "value": s.value})
json.dump(out, sys.stdout)
