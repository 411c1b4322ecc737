#!/usr/bin/python3
"""Open an ibtool report page in headless Chromium (Selenium, chromedriver)
and check what a reader sees against the document the page embeds.

  browser_check.py PAGE.html SHOT.png [--search GUID] [--click-node INDEX]
                   [--expect-status STATUS ...] [--max-open-ms MS] [--timing]

Checks: no console errors; the picture drawn (the page's 'ibtool-drawn'
performance mark); as many drawn items and edges as layout.items and
layout.edges, every node and link of the document in them; a click on a
switch opens its ports table with a row per port of the document; a
search for a GUID highlights that node and shows its ports; with
--expect-status, a drawn edge of each status.  Saves a screenshot.  Prints
one JSON line of what it measured; exits 1 with the reasons on failure.
"""
import argparse
import json
import os
import re
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys


def embedded(path):
    text = open(path, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="ibtool-report-data">(.*?)</script>', text, re.S)
    if not m:
        raise SystemExit(f"{path}: no report data")
    return json.loads(m.group(1))


def browser(width, height):
    o = webdriver.ChromeOptions()
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              f"--window-size={width},{height}", "--hide-scrollbars"):
        o.add_argument(a)
    o.binary_location = "/usr/bin/chromium"
    o.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=o)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("shot")
    ap.add_argument("--search")
    ap.add_argument("--click-node", type=int)
    ap.add_argument("--expect-status", action="append", default=[])
    ap.add_argument("--max-open-ms", type=float, default=0)
    ap.add_argument("--width", type=int, default=1500)
    ap.add_argument("--height", type=int, default=1100)
    ap.add_argument("--shot-only", action="store_true", help="a screenshot and the timing, no interaction")
    a = ap.parse_args()
    doc = embedded(a.page)
    fail = []
    out = {}
    d = browser(a.width, a.height)
    try:
        d.set_page_load_timeout(120)
        d.get("file://" + os.path.abspath(a.page))
        deadline = time.time() + 60
        while time.time() < deadline and d.execute_script("return document.body.dataset.drawn") != "yes":
            time.sleep(0.05)
        t = d.execute_script(
            "var m = performance.getEntriesByName('ibtool-drawn');"
            "var n = performance.getEntriesByType('navigation')[0];"
            "return {drawn: m.length ? m[0].startTime : null, dcl: n ? n.domContentLoadedEventEnd : null,"
            " script: window.ibtoolReport ? window.ibtoolReport.scriptMs : null};")
        out["drawn_ms"] = t["drawn"]
        out["script_ms"] = t["script"]
        if t["drawn"] is None:
            fail.append("the page never marked its picture drawn")
        elif a.max_open_ms and t["drawn"] > a.max_open_ms:
            fail.append(f"drawn after {t['drawn']:.0f} ms, more than {a.max_open_ms:.0f}")
        items = d.execute_script("return document.querySelectorAll('#items > .item').length")
        # (an edge that stands out is a path of its own, the others are
        # segments of a bundle path that says how many it holds)
        edges = d.execute_script(
            "var n = document.querySelectorAll('#edges > .edge').length;"
            "document.querySelectorAll('#edges > .bundle').forEach(function (b) {"
            " n += (b.getAttribute('d').match(/M/g) || []).length; });"
            "return n;")
        out["items"], out["edges"] = items, edges
        L = doc["layout"]
        if items != len(L["items"]):
            fail.append(f"{items} items drawn, the document has {len(L['items'])}")
        if edges != len(L["edges"]):
            fail.append(f"{edges} edges drawn, the document has {len(L['edges'])}")
        # Every node and link of the document is in the picture.
        in_items = sum(len(i["hosts"]) if i["kind"] == "hosts" else 1 for i in L["items"])
        in_edges = sum(len(e["links"]) for e in L["edges"])
        if in_items != len(doc["nodes"]):
            fail.append(f"the items hold {in_items} nodes, the document has {len(doc['nodes'])}")
        if in_edges != len(doc["links"]):
            fail.append(f"the edges hold {in_edges} links, the document has {len(doc['links'])}")
        for st in a.expect_status:
            n = d.execute_script(f"return document.querySelectorAll('#edges > .edge.s-{st}').length")
            want = sum(1 for e in L["edges"] if e["status"] == st)
            if n == 0 or n != want:
                fail.append(f"{n} edges drawn as {st}, the document has {want}")

        if not a.shot_only:
            # A click on a switch: its ports table.
            k = a.click_node
            if k is None:
                k = next(i for i, it in enumerate(L["items"]) if it["kind"] == "switch")
            node = L["items"][k]["node"]
            el = d.find_element(By.CSS_SELECTOR, f'#items > .item[data-i="{k}"]')
            d.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", el)
            rows = d.find_elements(By.CSS_SELECTOR, "#panel table.ports tbody tr")
            title = d.find_element(By.CSS_SELECTOR, "#panel h3").text
            want_rows = len(doc["nodes"][node]["ports"])
            out["clicked"] = title
            if len(rows) != want_rows:
                fail.append(f"ports table of {title}: {len(rows)} rows, the document has {want_rows}")
            n = doc["nodes"][node]
            shown_name = n["name"] if n.get("nameFromMap") else (n["nodeDescription"] or n["name"])
            if title != shown_name:
                fail.append(f"clicked {shown_name}, the panel shows {title}")
            # A search for a GUID.
            g = a.search
            if g is None:
                g = next(n["nodeGUID"] for n in doc["nodes"] if n["nodeType"] != "Switch")
            box = d.find_element(By.ID, "search")
            box.clear()
            box.send_keys(g, Keys.ENTER)
            want = [i for i, n in enumerate(doc["nodes"]) if n["nodeGUID"] == g or
                    any(p.get("portGUID") == g for p in n["ports"])]
            shown = d.execute_script("return document.getElementById('panel').dataset.node")
            hl = d.execute_script("return document.querySelectorAll('#picture .hl').length + "
                                  "(document.getElementById('hl-edges').getAttribute('d') || '').split('M').length - 1")
            out["search"] = {"guid": g, "panel": shown, "highlighted": hl}
            if not want or shown != str(want[0]):
                fail.append(f"search {g}: the panel shows node {shown}, expected {want[:1]}")
            if hl == 0:
                fail.append(f"search {g}: nothing highlighted")
            # The tables sort.
            th = d.find_elements(By.CSS_SELECTOR, "#t-errors th")
            if th:
                d.execute_script("arguments[0].click()", th[0])
            # Back to the whole picture for the screenshot.
            box.clear()
            box.send_keys(Keys.ENTER)
            d.execute_script("document.getElementById('search').dispatchEvent(new Event('input'))")
            time.sleep(0.3)
        d.save_screenshot(a.shot)
        logs = d.get_log("browser")
        errs = [l["message"] for l in logs if l["level"] in ("SEVERE", "ERROR")]
        out["console_errors"] = errs
        if errs:
            fail.append("console errors: " + "; ".join(errs))
    finally:
        d.quit()
    print(json.dumps(out))
    if fail:
        print("\n".join(fail), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
