"""Home Assistant's device page of one device, in real headless Chromium (Debian's chromium and
chromium-driver, driven by selenium, as ui-browser.py is): signed in with the test's long-lived token
put where Home Assistant's frontend keeps its tokens, the page opened, its text read and a screenshot
saved. Prints one JSON object ({"text": …, "screenshot": …} or {"error": …}); the Swift test asserts on it.
Bounded: every wait has a timeout, the browser only reaches 127.0.0.1.

usage: ha-device-page.py BASE TOKEN DEVICE_ID SCREENSHOT_PATH WANTED_TEXT
"""
import json
import sys
import time
import traceback

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

base, token, device_id, screenshot, wanted = sys.argv[1:6]
found = {}

options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-default-apps", "--disable-extensions", "--dns-prefetch-disable",
                 "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1", "--window-size=1280,900"]:
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
driver.set_page_load_timeout(60)


def page_text():
    """The visible text of the page, through Home Assistant's shadow roots (its elements are web components)."""
    return driver.execute_script("""
        const parts = [];
        const walk = (node) => {
            if (!node) return;
            if (node.nodeName === 'STYLE' || node.nodeName === 'SCRIPT') return;
            if (node.nodeType === Node.TEXT_NODE) { const t = node.textContent.trim(); if (t) parts.push(t); return; }
            if (node.shadowRoot) walk(node.shadowRoot);
            for (const child of node.childNodes) walk(child);
        };
        walk(document.body);
        return parts.join(' | ');
    """)


try:
    # The frontend reads its tokens from localStorage: a long-lived token is an access token that
    # does not expire for years, so the frontend never asks to refresh it.
    driver.get(base + "/manifest.json")
    tokens = {"hassUrl": base, "clientId": base + "/", "access_token": token, "token_type": "Bearer",
              "expires_in": 315360000, "expires": int(time.time() * 1000) + 315360000000, "refresh_token": ""}
    driver.execute_script("localStorage.setItem('hassTokens', arguments[0]);", json.dumps(tokens))
    driver.get(base + "/config/devices/device/" + device_id)
    deadline = time.monotonic() + 45
    text = ""
    while time.monotonic() < deadline:
        text = page_text()
        if all(word in text for word in wanted.split("|")):
            break
        time.sleep(0.5)
    time.sleep(1)  # the last rows drawn
    found["text"] = page_text()[:4000]
    driver.save_screenshot(screenshot)
    found["screenshot"] = screenshot
except Exception:
    found["error"] = traceback.format_exc()[-2000:]
finally:
    driver.quit()
print(json.dumps(found))
