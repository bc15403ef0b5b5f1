"""The HTML report in a real browser: headless Chromium, driven over the DevTools protocol.

It must load with no console message of level warning or error, no script error and no request
for anything but the file itself; it must fit a phone's width and print to PDF.  Screenshots and
the PDF go to artifacts/ (git-ignored) for a person to look at.  Without Chromium the test skips,
except in CI (the CI environment variable set), where it must run.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, seed_text
from test_reports_golden import SEED, cinderella_report

from rulecheck.reports.render import render_html

ARTIFACTS = ROOT / "artifacts"
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--remote-debugging-pipe",
]
# A guard against a browser that hangs, not a measurement: nothing is asserted about time.
GUARD_SECONDS = 120


def chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class DevTools:
    """The Chrome DevTools protocol over --remote-debugging-pipe: JSON messages ended by NUL,
    commands on the browser's fd 3, replies and events on its fd 4."""

    def __init__(self, exe: str, profile: str) -> None:
        cmd_r, self.cmd_w = os.pipe()
        self.res_r, res_w = os.pipe()

        def child_fds() -> None:
            # move the pipe ends to high numbers first so the dup2s below cannot clobber each other
            a, b = os.dup(cmd_r), os.dup(res_w)
            a2, b2 = os.dup2(a, 100), os.dup2(b, 101)
            os.dup2(a2, 3)
            os.dup2(b2, 4)

        # stderr goes to a file: a pipe nobody reads could fill up and stall the browser
        self.log = Path(profile) / "chromium-stderr.log"
        with self.log.open("wb") as err:
            self.proc = subprocess.Popen(
                [exe, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                close_fds=False, preexec_fn=child_fds,
            )
        os.close(cmd_r)
        os.close(res_w)
        self.buf = b""
        self.next_id = 0
        self.events: list[dict[str, Any]] = []
        self.deadline = time.monotonic() + GUARD_SECONDS

    def _read_message(self) -> dict[str, Any]:
        while b"\0" not in self.buf:
            left = self.deadline - time.monotonic()
            ready, _, _ = select.select([self.res_r], [], [], max(0.0, left))
            if not ready:
                raise TimeoutError("the browser stopped answering")
            chunk = os.read(self.res_r, 1 << 20)
            if not chunk:
                err = self.log.read_text(errors="replace")
                raise RuntimeError(f"the browser closed the pipe: {err[-2000:]}")
            self.buf += chunk
        raw, self.buf = self.buf.split(b"\0", 1)
        msg: dict[str, Any] = json.loads(raw)
        return msg

    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> dict[str, Any]:
        self.next_id += 1
        msg: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        while True:
            reply = self._read_message()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result
            self.events.append(reply)

    def wait_for(self, method: str) -> dict[str, Any]:
        for e in self.events:
            if e.get("method") == method:
                return e
        while True:
            e = self._read_message()
            self.events.append(e)
            if e.get("method") == method:
                return e

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.cmd_w)
        os.close(self.res_r)


def problems(events: list[dict[str, Any]], page_url: str) -> list[str]:
    """Everything in the page's event stream that a clean, self-contained page never produces."""
    out = []
    for e in events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.exceptionThrown":
            out.append(f"script error: {p.get('exceptionDetails', {}).get('text')}")
        elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
            out.append(f"console {p.get('type')}: {[a.get('value') for a in p.get('args', [])]}")
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") in ("error", "warning"):
            out.append(f"log {p['entry']['level']}: {p['entry'].get('text')}")
        elif m == "Network.requestWillBeSent":
            url = p.get("request", {}).get("url", "")
            if url != page_url and not url.startswith(("data:", "about:")):
                out.append(f"fetched {url}")
        elif m == "Network.loadingFailed":
            out.append(f"failed to load: {p.get('errorText')}")
    return out


def need_chromium() -> str:
    exe = chromium()
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("CI needs Chromium for this test: apt-get install -y chromium")
        pytest.skip("Chromium is not installed (apt-get install -y chromium); CI runs this test")
    return exe


def open_page(dt: DevTools, url: str) -> str:
    """A new tab with the page loaded at a phone's size; returns the DevTools session."""
    target = dt.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session: str = dt.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Runtime", "Log", "Network", "Page"):
        dt.send(f"{domain}.enable", session=session)
    dt.send("Emulation.setDeviceMetricsOverride",
            {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True}, session=session)
    dt.send("Page.navigate", {"url": url}, session=session)
    dt.wait_for("Page.loadEventFired")
    return session


def test_the_browser_check_catches_a_broken_page(tmp_path: Path) -> None:
    """The checks below can fail: a page with a script error, a console error and a fetch from
    elsewhere shows all three."""
    exe = need_chromium()
    page = tmp_path / "broken.html"
    page.write_text('<!DOCTYPE html><html><head><title>x</title></head><body>'
                    '<script>console.error("boom"); throw new Error("thrown");</script>'
                    '<img src="http://127.0.0.1:9/missing.png" alt=""></body></html>', encoding="utf-8")
    url = page.resolve().as_uri()
    with tempfile.TemporaryDirectory() as profile:
        dt = DevTools(exe, profile)
        try:
            open_page(dt, url)
            found = problems(dt.events, url)
        finally:
            dt.close()
    assert any(f.startswith("script error") for f in found), found
    assert any(f.startswith("console error") for f in found), found
    assert any(f.startswith("fetched http://127.0.0.1:9/") for f in found), found


def test_html_report_in_headless_chromium() -> None:
    exe = need_chromium()
    try:
        rulebook: str | None = seed_text(SEED)
    except pytest.skip.Exception:
        rulebook = None
    ARTIFACTS.mkdir(exist_ok=True)
    page = ARTIFACTS / "cinderella-report.html"
    page.write_text(render_html(cinderella_report(rulebook)), encoding="utf-8")
    url = page.resolve().as_uri()

    with tempfile.TemporaryDirectory() as profile:
        dt = DevTools(exe, profile)
        try:
            session = open_page(dt, url)
            check = dt.send("Runtime.evaluate", {"returnByValue": True, "expression": """({
                title: document.title,
                scripts: document.querySelectorAll('script').length,
                overflow: document.documentElement.scrollWidth - window.innerWidth,
                findings: document.querySelectorAll('article.finding').length,
                rules: document.querySelectorAll('table.rules').length,
            })"""}, session=session)["result"]["value"]
            shot = dt.send("Page.captureScreenshot", {"format": "png"}, session=session)
            (ARTIFACTS / "cinderella-report-phone.png").write_bytes(base64.b64decode(shot["data"]))
            dt.send("Emulation.setDeviceMetricsOverride",
                    {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False}, session=session)
            shot = dt.send("Page.captureScreenshot", {"format": "png"}, session=session)
            (ARTIFACTS / "cinderella-report-desktop.png").write_bytes(base64.b64decode(shot["data"]))
            pdf = base64.b64decode(dt.send("Page.printToPDF", {"printBackground": True}, session=session)["data"])
            (ARTIFACTS / "cinderella-report.pdf").write_bytes(pdf)
            found = problems(dt.events, url)
        finally:
            dt.close()

    assert found == []
    assert check["title"] == "Clarification report: Too Many Cinderellas"
    assert check["scripts"] == 0
    assert check["overflow"] <= 0, f"the page is {check['overflow']}px wider than a phone screen"
    assert check["findings"] == 4
    assert check["rules"] > 50
    assert pdf.startswith(b"%PDF")
    assert (ARTIFACTS / "cinderella-report-phone.png").read_bytes().startswith(b"\x89PNG")
