#!/usr/bin/env python3
"""Opens HTML reports in headless Chromium and checks what it rendered: no
console message at all (the page has no script, so any message is an error,
e.g. an SVG attribute Chromium rejects), nothing loaded from outside the file,
the expected charts in the rendered DOM, each with its marks, and where the
browser put the text of legends and marker labels: each inside its chart,
above the plot, and clear of the others (measured with getBBox by a script
added to a copy of the page, in the fonts this machine has).

usage: check_html.py HTML EXPECTED [HTML EXPECTED ...]
EXPECTED counts charts by kind and cross-device sections, e.g.
heatmap=2,scatter=1,bars=1,histogram=1,stepline=1,cross-device=0
"""
import html
import html.parser
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# The fewest marks (elements with a tooltip, or lines) a chart of each kind must hold.
MIN_MARKS = {"heatmap": 5, "scatter": 50, "bars": 2, "histogram": 5, "stepline": 3}


# Added to a copy of the page: measures every legend entry (name and swatch) and
# marker label, and writes what is wrong into <pre id="blocktune-layout">.
LAYOUT_SCRIPT = """<script>
(() => {
  const problems = [];
  let labels = 0;
  document.querySelectorAll("svg.chart").forEach((svg, index) => {
    const name = `${svg.dataset.chart} chart ${index + 1}`;
    const view = svg.viewBox.baseVal;
    let plotTop = Infinity;
    for (const line of svg.querySelectorAll("line"))
      plotTop = Math.min(plotTop, line.y1.baseVal.value, line.y2.baseVal.value);
    const placed = [];
    for (const text of svg.querySelectorAll("text.legend, text.marker")) {
      const parts = [text.getBBox()];
      const swatch = text.previousElementSibling;
      if (text.classList.contains("legend") && swatch && swatch.tagName === "rect") parts.push(swatch.getBBox());
      const box = {
        text: text.textContent,
        left: Math.min(...parts.map(b => b.x)), right: Math.max(...parts.map(b => b.x + b.width)),
        top: Math.min(...parts.map(b => b.y)), bottom: Math.max(...parts.map(b => b.y + b.height)),
      };
      const where = `${name}: '${box.text}' at x ${box.left.toFixed(1)}..${box.right.toFixed(1)}, ` +
                    `y ${box.top.toFixed(1)}..${box.bottom.toFixed(1)}`;
      if (box.left < 0 || box.top < 0 || box.right > view.width || box.bottom > view.height)
        problems.push(`${where}: outside the chart (${view.width}x${view.height})`);
      if (box.bottom > plotTop) problems.push(`${where}: reaches into the plot (from y ${plotTop})`);
      for (const other of placed)
        if (box.left < other.right && other.left < box.right && box.top < other.bottom && other.top < box.bottom)
          problems.push(`${where}: overlaps '${other.text}'`);
      placed.push(box);
      ++labels;
    }
  });
  const out = document.createElement("pre");
  out.id = "blocktune-layout";
  out.textContent = JSON.stringify({labels, problems});
  document.body.appendChild(out);
})();
</script>"""


class Charts(html.parser.HTMLParser):
    """Counts charts, their marks, cross-device sections and external references."""

    def __init__(self):
        super().__init__()
        self.charts = []  # [kind, marks]
        self.cross_device = 0
        self.external = []
        self.stack = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in ("src", "href"):
            if name in attrs and not attrs[name].startswith("#"):
                self.external.append(f"<{tag} {name}={attrs[name]!r}>")
        if tag == "section" and "cross-device" in attrs.get("class", "").split():
            self.cross_device += 1
        if tag == "svg" and "chart" in attrs.get("class", "").split():
            self.charts.append([attrs.get("data-chart"), 0])
        if self.charts and tag in ("rect", "circle", "path"):
            self.stack.append(tag)
        if tag == "title" and self.stack:
            self.charts[-1][1] += 1  # a mark with a tooltip
        if tag == "path" and self.charts:
            self.charts[-1][1] += 1

    def handle_endtag(self, tag):
        if self.stack and tag == self.stack[-1]:
            self.stack.pop()


def render(chromium, page):
    with tempfile.TemporaryDirectory() as scratch:
        measured = Path(scratch) / page.name
        measured.write_text(page.read_text(encoding="utf-8").replace("</body>", LAYOUT_SCRIPT + "</body>"),
                            encoding="utf-8")
        command = [chromium, "--headless", "--disable-gpu", "--no-sandbox", "--disable-dev-shm-usage",
                   "--no-first-run", "--disable-extensions", f"--user-data-dir={scratch}/profile",
                   "--enable-logging=stderr", "--v=0", "--dump-dom", measured.as_uri()]
        result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    if result.returncode != 0 or "<body" not in result.stdout:
        sys.exit(f"{page}: chromium failed (exit {result.returncode}):\n{result.stderr[-2000:]}")
    console = [line for line in result.stderr.splitlines() if ":CONSOLE" in line]
    return result.stdout, console


def check(chromium, page, expected_text):
    expected = {kind: int(count) for kind, count in (item.split("=") for item in expected_text.split(","))}
    dom, console = render(chromium, page)
    problems = [f"console: {line}" for line in console]
    charts = Charts()
    charts.feed(dom)
    problems += [f"loads from outside the file: {item}" for item in charts.external]
    layout = re.search(r'<pre id="blocktune-layout">(.*?)</pre>', dom, re.S)
    layout = json.loads(html.unescape(layout.group(1))) if layout else {"labels": 0, "problems": ["not measured"]}
    problems += [f"layout: {problem}" for problem in layout["problems"]]
    if layout["labels"] == 0:
        problems.append("layout: no legend entry or marker label found (text.legend, text.marker)")
    found = {kind: 0 for kind in expected}
    for kind, marks in charts.charts:
        found[kind] = found.get(kind, 0) + 1
        if marks < MIN_MARKS.get(kind, 1):
            problems.append(f"a {kind} chart has {marks} marks, expected at least {MIN_MARKS.get(kind, 1)}")
    found["cross-device"] = charts.cross_device
    for kind, count in expected.items():
        if found.get(kind, 0) != count:
            problems.append(f"{found.get(kind, 0)} {kind} in the rendered page, expected {count}")
    if problems:
        sys.exit(f"{page}:\n  " + "\n  ".join(problems))
    print(f"{page}: rendered without console messages; " + ", ".join(f"{v} {k}" for k, v in sorted(found.items()))
          + f"; {layout['labels']} legend entries and marker labels inside their charts, none over another")


def main(arguments):
    if not arguments or len(arguments) % 2:
        sys.exit(__doc__)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        sys.exit("check_html.py: chromium is not installed (apt-get install chromium; scripts/test.sh installs it)")
    for i in range(0, len(arguments), 2):
        check(chromium, Path(arguments[i]), arguments[i + 1])


if __name__ == "__main__":
    main(sys.argv[1:])
