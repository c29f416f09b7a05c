"""The web UI in real headless Chromium (Debian's chromium and chromium-driver, driven by selenium):
what WebUIBrowserTests asks of a running demo. Prints one JSON object of findings; the Swift test
asserts on them. Bounded: every wait has a timeout, the browser only reaches 127.0.0.1.

usage: ui-browser.py BASE LOGIN_URL TOKEN SCREENSHOTS_DIR
"""
import json
import sys
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from uiredraw import again

base, login_url, token, shots = sys.argv[1:5]
found = {}


def api(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, method=method, data=data,
                                     headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=20) as response:
        return json.load(response)


options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-default-apps", "--disable-extensions", "--dns-prefetch-disable",
                 "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1", "--window-size=1280,1000"]:
    options.add_argument(argument)
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
driver.set_page_load_timeout(30)
wait = WebDriverWait(driver, 20)


def card_button_centre(name):
    """Where the first button of the card titled `name` is on the screen (scrolled into view)."""
    return driver.execute_script("""
        const card = [...document.querySelectorAll('article.card')]
          .find(c => c.querySelector('h3').textContent === arguments[0]);
        const button = card && card.querySelector('button');
        if (!button) return null;
        button.scrollIntoView({block: 'center'});
        const box = button.getBoundingClientRect();
        return [Math.round(box.left + box.width / 2), Math.round(box.top + box.height / 2)];""", name)


def click_at(point):
    """A real mouse click at a point of the viewport, as a person makes it: whatever stands there then
    gets it, even a card redrawn since it was found."""
    if point is None:
        raise LookupError("no such button on the page")
    actions = ActionBuilder(driver)
    actions.pointer_action.move_to_location(point[0], point[1]).click()
    actions.perform()


def card_text(name):
    """The card's text, read in one step in the page (a card may be redrawn at any moment)."""
    return driver.execute_script("""
        const card = [...document.querySelectorAll('article.card')]
          .find(c => c.querySelector('h3').textContent === arguments[0]);
        return card ? card.innerText : '';""", name)


try:
    # A wrong password is refused, and says so.
    driver.get(base + "/ui/login")
    driver.find_element(By.ID, "username").send_keys("owner")
    driver.find_element(By.ID, "password").send_keys("not the password")
    driver.find_element(By.ID, "sign-in").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "[role=alert]"))
    found["wrongPassword"] = driver.find_element(By.CSS_SELECTOR, "[role=alert]").text
    found["wrongPasswordCookie"] = driver.get_cookie("tb_session") is not None
    driver.save_screenshot(shots + "/login-refused.png")
    driver.get(base + "/ui/")
    found["anonymousLandsOn"] = driver.current_url.replace(base, "")

    # A chat app's link preview fetches the link first: that does not use the code up.
    with urllib.request.urlopen(login_url, timeout=10) as preview:
        found["previewStatus"] = preview.status
    # The one-time login (its page asks, the button uses the code), then the devices by room.
    driver.get(login_url)
    driver.find_element(By.ID, "one-time").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "article.card"))
    found["cookie"] = driver.get_cookie("tb_session") or {}
    code = urllib.parse.parse_qs(urllib.parse.urlparse(login_url).query)["code"][0]
    reuse = urllib.request.Request(base + "/ui/login", method="POST",
                                   data=urllib.parse.urlencode({"code": code}).encode(),
                                   headers={"Content-Type": "application/x-www-form-urlencoded"})
    try:
        urllib.request.urlopen(reuse, timeout=10)
        found["codeReused"] = "accepted"
    except urllib.error.HTTPError as refusal:
        found["codeReused"] = refusal.code
    try:
        urllib.request.urlopen(login_url, timeout=10)
        found["linkAfterUse"] = "offered"
    except urllib.error.HTTPError as refusal:
        found["linkAfterUse"] = refusal.code
    found["cards"] = len(driver.find_elements(By.CSS_SELECTOR, "article.card"))
    found["apiDevices"] = len(api("GET", "/api/v1/devices")["devices"])
    found["rooms"] = driver.execute_script("""
        const rooms = {};
        for (const section of document.querySelectorAll('main section')) {
          rooms[section.querySelector('h2').textContent] =
            [...section.querySelectorAll('article.card h3')].map(h => h.textContent);
        }
        return rooms;""")
    wait.until(lambda d: d.execute_script("return document.body.dataset.live") == "yes")
    driver.save_screenshot(shots + "/devices.png")

    # Toggle the Desk lamp (a Tasmota light: confirmed by its echo), with the mouse.
    before = card_text("Desk lamp")
    found["toggleLabel"] = driver.execute_script("""
        const card = [...document.querySelectorAll('article.card')]
          .find(c => c.querySelector('h3').textContent === arguments[0]);
        return card ? card.querySelector('button').getAttribute('aria-label') : null;""", "Desk lamp")
    click_at(card_button_centre("Desk lamp"))
    wait.until(lambda d: d.find_element(By.ID, "status").text not in ("", "Sending…"))
    found["toggleStatus"] = driver.find_element(By.ID, "status").text
    wait.until(lambda d: card_text("Desk lamp") != before)
    found["deskLampBefore"], found["deskLampAfter"] = before, card_text("Desk lamp")

    # Another client switches the Kitchen plug: the page shows it without a reload.
    driver.execute_script("window.notReloaded = true")
    before = card_text("Kitchen plug")
    command = "off" if "Turn off" in before else "on"
    found["apiCommand"] = api("POST", "/api/v1/devices/Kitchen%20plug/commands",
                              {"trait": "matter.OnOff", "command": command})["status"]
    wait.until(lambda d: card_text("Kitchen plug") != before)
    found["kitchenPlugBefore"], found["kitchenPlugAfter"] = before, card_text("Kitchen plug")
    found["notReloaded"] = driver.execute_script("return window.notReloaded === true")

    # The partner cloud asks to confirm commands on its outlets: the page asks; Cancel sends nothing.
    before = card_text("Garden plug")
    driver.execute_script("document.getElementById('status').textContent = ''")
    click_at(card_button_centre("Garden plug"))
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#challenge form"))
    found["challengeAsked"] = driver.find_element(By.ID, "status").text
    found["challengeFocus"] = driver.switch_to.active_element.text
    driver.save_screenshot(shots + "/challenge.png")
    driver.find_element(By.XPATH, "//form[@class='challenge']/button[text()='Cancel']").click()
    found["challengeCancelled"] = driver.find_element(By.ID, "status").text
    time.sleep(1)
    found["gardenPlug"] = [before, card_text("Garden plug")]
    found["gardenPlugUnchanged"] = card_text("Garden plug") == before

    # With the keyboard: Tab to a card's button, Enter (and Enter again on Confirm when asked).
    reached = None
    for _ in range(60):
        ActionChains(driver).send_keys(Keys.TAB).perform()
        label = driver.execute_script("""
            const active = document.activeElement;
            return active && active.tagName === 'BUTTON' ? active.getAttribute('aria-label') || '' : '';""")
        if label.startswith("Turn"):
            reached = label
            break
    found["keyboardReached"] = reached
    if reached:
        driver.execute_script("document.getElementById('status').textContent = ''")
        again(lambda: driver.switch_to.active_element.send_keys(Keys.ENTER))
        wait.until(lambda d: d.find_element(By.ID, "status").text not in ("", "Sending…"))
        if driver.find_elements(By.CSS_SELECTOR, "#challenge form"):
            found["keyboardChallenge"] = driver.switch_to.active_element.text
            driver.execute_script("document.getElementById('status').textContent = ''")
            driver.switch_to.active_element.send_keys(Keys.ENTER)
            wait.until(lambda d: d.find_element(By.ID, "status").text not in ("", "Sending…"))
        found["keyboardStatus"] = driver.find_element(By.ID, "status").text

    # Each card's values in people's words (the Swift test compares them with the API's values, read
    # just before and just after: a sensor's value may drift between).
    ids = [device["id"] for device in api("GET", "/api/v1/devices")["devices"]]
    found["apiBefore"] = {i: api("GET", "/api/v1/devices/" + urllib.parse.quote(i, safe="")) for i in ids}
    found["cardValues"] = driver.execute_script("""
        const values = {};
        for (const card of document.querySelectorAll('article.card')) {
          const shown = {};
          for (const value of card.querySelectorAll('span.value[data-key]')) {
            shown[value.dataset.key] = value.textContent;
          }
          values[card.dataset.device] = shown;
        }
        return values;""")
    found["apiAfter"] = {i: api("GET", "/api/v1/devices/" + urllib.parse.quote(i, safe="")) for i in ids}
    found["hallLightCard"] = card_text("Hall light")
    driver.save_screenshot(shots + "/devices-values.png")

    def card_value(name, key):
        return driver.execute_script("""
            const card = [...document.querySelectorAll('article.card')]
              .find(c => c.querySelector('h3').textContent === arguments[0]);
            const value = card && card.querySelector('span.value[data-key="' + arguments[1] + '"]');
            return value ? value.textContent : null;""", name, key)

    def press(selector):
        driver.execute_script("document.getElementById('status').textContent = ''")
        again(lambda: driver.execute_script(
            "const b = document.querySelector(arguments[0]); b.scrollIntoView({block: 'center'}); b.click();",
            selector))
        wait.until(lambda d: d.find_element(By.ID, "status").text not in ("", "Sending…"))
        return driver.find_element(By.ID, "status").text

    # The radiator's setpoint + (half a degree), the lock locked, the blinds to 40 % open: each from its
    # card, each confirmed by the simulated device, each redrawn on the card.
    setpoint = "matter.Thermostat.occupiedHeatingSetpoint"
    found["setpointBefore"] = card_value("Bedroom radiator", setpoint)
    found["setpointStatus"] = press("article.card button[aria-label^='Bedroom radiator: heating to ']:last-of-type")
    wait.until(lambda d: card_value("Bedroom radiator", setpoint) != found["setpointBefore"])
    found["setpointAfter"] = card_value("Bedroom radiator", setpoint)
    found["lockStatus"] = press("article.card button[aria-label='Lock Front door lock']")
    wait.until(lambda d: card_value("Front door lock", "matter.DoorLock.lockState") == "locked")
    found["lockAfter"] = card_value("Front door lock", "matter.DoorLock.lockState")
    position = "matter.WindowCovering.currentPositionLiftPercent100ths"
    driver.execute_script("document.getElementById('status').textContent = ''")
    again(lambda: driver.execute_script("""
        const slider = document.querySelector(
          "article.card input[type=range][aria-label='Position of Living room blinds']");
        slider.scrollIntoView({block: 'center'});
        slider.value = 40;
        slider.dispatchEvent(new Event('change', {bubbles: true}));"""))
    wait.until(lambda d: d.find_element(By.ID, "status").text not in ("", "Sending…"))
    found["blindsStatus"] = driver.find_element(By.ID, "status").text
    wait.until(lambda d: card_value("Living room blinds", position) == "40 % open")
    found["blindsAfter"] = card_value("Living room blinds", position)
    found["apiChanged"] = {name: api("GET", "/api/v1/devices/" + urllib.parse.quote(name))
                           for name in ["Bedroom radiator", "Front door lock", "Living room blinds"]}

    # One device, trait by trait.
    lamp = api("GET", "/api/v1/devices/Hall%20light")["state"]["id"]
    driver.get(base + "/ui/devices/" + urllib.request.quote(lamp))
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "div.trait"))
    found["deviceTitle"] = again(lambda: driver.find_element(By.TAG_NAME, "h1").text)
    found["traits"] = again(lambda: [h.text for h in driver.find_elements(By.CSS_SELECTOR, "div.trait h3")])
    found["deviceText"] = again(lambda: driver.find_element(By.ID, "traits").text[:4000])
    driver.save_screenshot(shots + "/device.png")
    # The raw view, one click away: ids, source, values as sent, metadata.
    raw = "//details[@class='raw'][summary[text()='Raw: matter.OnOff in light']]"
    again(lambda: driver.find_element(By.XPATH, raw + "/summary").click())
    found["rawText"] = again(lambda: driver.find_element(By.XPATH, raw).text[:2000])
    # Its history: a band per trait row (the reason in each band's title and in the list below it).
    found["historyRows"] = driver.execute_script("""
        return [...document.querySelectorAll('#history div.timeline')].map(row => ({
          label: row.querySelector('p.label').textContent,
          bands: [...row.querySelectorAll('rect.band')].map(band => ({
            state: band.getAttribute('class'), title: band.querySelector('title').textContent})),
          list: row.querySelector('ul.band-list').textContent}))""")
    driver.execute_script("document.getElementById('history').scrollIntoView()")
    driver.save_screenshot(shots + "/device-history.png")

    # A sensor's day: each point drawn, against the API's history of the same attribute.
    climate = api("GET", "/api/v1/devices/Climate")["state"]["id"]
    driver.get(base + "/ui/devices/" + urllib.request.quote(climate))
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "section.history"))
    found["climateCharts"] = driver.execute_script("""
        return [...document.querySelectorAll('#history figure.chart')].map(figure => ({
          caption: figure.querySelector('figcaption').textContent,
          points: [...figure.querySelectorAll('circle')].map(c => [c.getAttribute('data-at'),
                                                                  parseFloat(c.getAttribute('data-value'))])}))""")
    found["climateHistory"] = api(
        "GET", "/api/v1/devices/" + urllib.request.quote(climate)
        + "/history?trait=matter.TemperatureMeasurement&attribute=measuredValue&limit=10000")
    driver.execute_script("document.getElementById('history').scrollIntoView()")
    driver.save_screenshot(shots + "/device-sensor-day.png")

    # The home: groups, scenes, automations, links; run a scene.
    driver.get(base + "/ui/home")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "section"))
    found["homeSections"] = again(
        lambda: [h.text for h in driver.find_elements(By.CSS_SELECTOR, "main section > h2")])
    found["reachabilityRows"] = [
        td.text for td in driver.find_elements(By.CSS_SELECTOR, "#availability tbody tr > td:first-child")]
    scene_text = """
        const button = document.querySelector("button[aria-label='Run Movie night']");
        return button ? button.closest('li').innerText : '';"""
    found["sceneBefore"] = driver.execute_script(scene_text)
    driver.execute_script("window.notReloaded = true")
    again(lambda: driver.find_element(By.CSS_SELECTOR, "button[aria-label='Run Movie night']").click())
    wait.until(lambda d: d.find_element(By.ID, "status").text not in ("", "Sending…"))
    found["sceneStatus"] = driver.find_element(By.ID, "status").text
    # Its last run is redrawn in place, without a reload.
    wait.until(lambda d: d.execute_script(scene_text) != found["sceneBefore"])
    found["sceneAfter"] = driver.execute_script(scene_text)
    found["homeNotReloaded"] = driver.execute_script("return window.notReloaded === true")
    driver.save_screenshot(shots + "/home.png")

    # A phone-sized screen: nothing wider than the screen.
    driver.set_window_size(390, 844)
    driver.get(base + "/ui/")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "article.card"))
    found["phoneOverflow"] = driver.execute_script(
        "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
    driver.save_screenshot(shots + "/devices-phone.png")

    # Nothing but this origin was asked for; a forged write without the CSRF token is refused.
    found["foreign"] = driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name).filter(n => !n.startsWith(location.origin))")
    found["forgedStatus"] = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch('/api/v1/devices/Desk%20lamp/commands', {method: 'POST', credentials: 'same-origin',
          headers: {'Content-Type': 'application/json'}, body: '{"trait":"matter.OnOff","command":"on"}'})
          .then(r => done(r.status), e => done(String(e)));""")
    console = [entry for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"]
    # The browser logs every 4xx answer: the forged write's 403, and the partner's challenges (422).
    expected = [" 403 ", " 401 ",
                "00010000a1/commands - Failed to load resource: the server responded with a status of 422"]
    found["consoleErrors"] = [entry.get("message", "")[:300] for entry in console
                              if not any(text in entry.get("message", "") for text in expected)]

    # Signing out ends the session.
    driver.find_element(By.CSS_SELECTOR, "form[action='/ui/logout'] button").click()
    wait.until(lambda d: "/ui/login" in d.current_url)
    found["afterLogout"] = driver.current_url.replace(base, "")
    found["cookieAfterLogout"] = driver.get_cookie("tb_session") is not None
except Exception as error:  # reported, with where it stopped, to the Swift test
    ours = [frame.lineno for frame in traceback.extract_tb(error.__traceback__) if frame.filename == __file__]
    line = ours[-1] if ours else 0
    found["error"] = f"ui-browser.py:{line}: {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
    try:
        driver.save_screenshot(shots + "/failure.png")
        found["failurePage"] = driver.page_source[:3000]
    except Exception as second:
        found["failureScreenshot"] = str(second)
finally:
    driver.quit()
print(json.dumps(found))
