"""The camera's live view in the web UI, in headless Chromium run inside the test's network sandbox (its
WebRTC gathers candidates on the sandbox's interfaces only; no mDNS names, no ICE servers). Signs in with
the owner's password, opens the camera's page, presses Watch live, and reports what the video element
played: currentTime twice a second apart and getVideoPlaybackQuality(); then the same on the camera's card,
across the card's redraws. Prints one JSON line."""
import json
import sys
import time
import traceback
import urllib.parse

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from uiredraw import again

base, user, password, device, shots = sys.argv[1:6]
host = urllib.parse.urlparse(base).hostname
found = {}
options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-default-apps", "--disable-extensions", "--dns-prefetch-disable",
                 "--disable-features=WebRtcHideLocalIpsWithMdns", "--autoplay-policy=no-user-gesture-required",
                 "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE " + host, "--window-size=1280,1000"]:
    options.add_argument(argument)
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
driver.set_page_load_timeout(30)
wait = WebDriverWait(driver, 30)


try:
    driver.get(base + "/ui/login")
    again(lambda: driver.find_element(By.NAME, "username").send_keys(user))
    driver.find_element(By.NAME, "password").send_keys(password)
    driver.find_element(By.ID, "sign-in").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "article.card"))
    driver.get(base + "/ui/devices/" + urllib.parse.quote(device))
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "button[data-live]"))
    again(lambda: driver.find_element(By.CSS_SELECTOR, "button[data-live]").click())
    wait.until(lambda d: d.execute_script("return document.getElementById('live-video').currentTime") > 1)
    first = driver.execute_script("return document.getElementById('live-video').currentTime")
    time.sleep(1)
    found["currentTime"] = [first, driver.execute_script("return document.getElementById('live-video').currentTime")]
    found["quality"] = driver.execute_script("""
        const quality = document.getElementById('live-video').getVideoPlaybackQuality();
        return {total: quality.totalVideoFrames, dropped: quality.droppedVideoFrames}""")
    found["size"] = driver.execute_script(
        "const v = document.getElementById('live-video'); return [v.videoWidth, v.videoHeight]")
    found["status"] = driver.find_element(By.ID, "status").text
    driver.execute_script("document.getElementById('live').scrollIntoView()")
    driver.save_screenshot(shots + "/camera-live.png")
    again(lambda: driver.find_element(By.CSS_SELECTOR, "button[data-live-stop]").click())
    found["stopped"] = driver.execute_script("return document.getElementById('live-video').srcObject === null")

    # The camera's card on the devices page: Watch live there; the card is redrawn (the test publishes motion
    # every second) and keeps playing.
    driver.get(base + "/ui/")
    card = "card-" + device
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#%s button[data-live]" % card))
    again(lambda: driver.find_element(By.CSS_SELECTOR, "#%s button[data-live]" % card).click())
    video = "const v = document.querySelector('#%s video[data-live-video]'); " % card
    updated = "return document.getElementById('%s').dataset.updated || ''" % card
    wait.until(lambda d: d.execute_script(video + "return v ? v.currentTime : 0") > 1)
    before = driver.execute_script(updated)
    wait.until(lambda d: d.execute_script(updated) != before)
    first = driver.execute_script(video + "return v.currentTime")
    time.sleep(1)
    found["cardTime"] = [first, driver.execute_script(video + "return v.currentTime")]
    found["cardRedrawn"] = [before, driver.execute_script(updated)]
    found["cardPlaying"] = driver.execute_script(video + "return v.srcObject !== null && !v.hidden")
    driver.execute_script("document.getElementById('%s').scrollIntoView()" % card)
    driver.save_screenshot(shots + "/camera-card.png")
    again(lambda: driver.find_element(By.CSS_SELECTOR, "#%s button[data-live-stop]" % card).click())
    found["cardStopped"] = driver.execute_script(video + "return v.srcObject === null && v.hidden")

    # The camera's notifications (the motion the test published), listed on its page with their times.
    driver.get(base + "/ui/devices/" + urllib.parse.quote(device) + "?range=hour")
    wait.until(lambda d: d.find_elements(By.ID, "history"))
    found["notifications"] = again(
        lambda: [li.text for li in driver.find_elements(By.CSS_SELECTOR, "ol.notifications li")])
    found["notificationTimes"] = again(lambda: [
        t.get_attribute("datetime") for t in driver.find_elements(By.CSS_SELECTOR, "ol.notifications time")])
    driver.execute_script("document.querySelector('ol.notifications').scrollIntoView()")
    driver.save_screenshot(shots + "/camera-notifications.png")
    found["consoleErrors"] = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
except Exception as error:  # reported to the test, which fails with it
    found["error"] = repr(error) + " " + traceback.format_exc()[-600:]
    found["status"] = driver.execute_script(
        "const s = document.getElementById('status'); return s ? s.textContent : ''")
    found["page"] = driver.page_source[:3000]
finally:
    driver.quit()
print(json.dumps(found))
