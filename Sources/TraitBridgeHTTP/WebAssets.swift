/// The web UI's only script and style sheet, served from `/ui/assets/` (no build step, nothing
/// from another origin). The script sends what the page's controls say to the HTTP API with the
/// session's CSRF token, says the outcome in the page's live region, and redraws a device's card
/// (or trait table) when `/api/v1/changes` says it changed.
enum WebAssets {
    static let script = #"""
        "use strict";
        (() => {
          const meta = document.querySelector('meta[name="csrf-token"]');
          if (!meta) return;
          const csrf = meta.content;
          const status = document.getElementById("status");
          function say(text, good) {
            status.textContent = text;
            status.className = good ? "ok" : "bad";
          }
          function outcome(response, answer) {
            if (!response.ok) {
              const what = answer.code || answer.title || String(response.status);
              return ["Refused: " + what + (answer.detail ? ": " + answer.detail : ""), false];
            }
            if (answer.results) {
              const count = answer.summary || {};
              return [answer.status + ": " + (count.confirmed || 0) + " confirmed, " + (count.assumed || 0) +
                " assumed, " + (count.refused || 0) + " refused, " + (count.skipped || 0) + " skipped",
                answer.status === "ok"];
            }
            if (answer.status === "confirmed") return ["Confirmed", true];
            if (answer.status === "assumed") return ["Sent; the device has not confirmed it (assumed)", true];
            return [String(answer.status), true];
          }
          async function send(path, body, device, what) {
            say("Sending…", true);
            let response;
            let answer = {};
            try {
              response = await fetch(path, {
                method: "POST", credentials: "same-origin",
                headers: {"Content-Type": "application/json", "X-CSRF-Token": csrf},
                body: JSON.stringify(body || {}),
              });
              answer = await response.json().catch(() => ({}));
            } catch (error) {
              say("The bridge did not answer: " + error, false);
              return;
            }
            if (answer.code === "challengeNeeded" && ask(answer.challenge, path, body, device, what)) return;
            const [text, good] = outcome(response, answer);
            say(text, good);
            if (device) refresh(device); else redrawHome();
          }
          // The home page's sections (groups' connectivity, scenes' and automations' last runs,
          // links' health): redrawn when a device changes, after a run, and every 30 s (for what the
          // change stream does not carry), at most once a second; the focused control keeps focus.
          const home = document.getElementById("home-sections");
          let homeBusy = false;
          let homeAgain = false;
          async function redrawHome() {
            if (!home) return;
            if (homeBusy) { homeAgain = true; return; }
            homeBusy = true;
            try {
              const response = await fetch("/ui/home/sections", {credentials: "same-origin"});
              if (response.ok) {
                const focused = home.contains(document.activeElement) ?
                  document.activeElement.getAttribute("aria-label") : null;
                home.innerHTML = await response.text();
                home.dataset.updated = String(Date.now());
                const again = focused && [...home.querySelectorAll("[aria-label]")]
                  .find((element) => element.getAttribute("aria-label") === focused);
                if (again) again.focus();
              }
            } catch (error) {
              console.warn("could not redraw the home: " + error);
            }
            setTimeout(() => {
              homeBusy = false;
              if (homeAgain) { homeAgain = false; redrawHome(); }
            }, 1000);
          }
          if (home) setInterval(redrawHome, 30000);
          const challenges = {
            ackNeeded: ["The device's cloud asks you to confirm", "Confirm", false],
            pinNeeded: ["The device's cloud asks for its PIN", "Send PIN", true],
            challengeFailedPinNeeded: ["Wrong PIN: try again", "Send PIN", true],
          };
          // A command the device's cloud wants confirmed (ackNeeded) or a PIN for: a small form
          // under the status line, focused; its answer sends the same command with the challenge.
          function ask(kind, path, body, device, what) {
            const known = challenges[kind];
            const box = document.getElementById("challenge");
            if (!known || !box) return false;
            const [text, action, needsPin] = known;
            say(text + (what ? ": " + what : "") + ".", kind !== "challengeFailedPinNeeded");
            const form = document.createElement("form");
            form.className = "challenge";
            let pin = null;
            if (needsPin) {
              const label = document.createElement("label");
              label.htmlFor = "challenge-pin";
              label.textContent = "PIN ";
              pin = document.createElement("input");
              Object.assign(pin, {id: "challenge-pin", type: "password", autocomplete: "off", required: true});
              pin.inputMode = "numeric";
              form.append(label, pin, " ");
            }
            const go = document.createElement("button");
            go.type = "submit";
            go.textContent = action;
            const cancel = document.createElement("button");
            cancel.type = "button";
            cancel.textContent = "Cancel";
            cancel.addEventListener("click", () => {
              box.replaceChildren();
              say("Cancelled: nothing was sent", false);
            });
            form.append(go, " ", cancel);
            form.addEventListener("submit", (event) => {
              event.preventDefault();
              const challenge = needsPin ? {pin: pin.value} : {ack: true};
              box.replaceChildren();
              send(path, Object.assign({}, body, {challenge: challenge}), device, what);
            });
            box.replaceChildren(form);
            (pin || go).focus();
            return true;
          }
          const busy = new Set();
          const again = new Set();
          async function refresh(device) {
            if (busy.has(device)) { again.add(device); return; }
            busy.add(device);
            try {
              const id = "card-" + device;
              const traits = document.getElementById("traits");
              if (document.getElementById(id)) {
                const response = await fetch("/ui/cards/" + encodeURIComponent(device), {credentials: "same-origin"});
                const html = response.ok ? await response.text() : "";
                const card = document.getElementById(id);
                if (html && card) replace(card, html);
              } else if (traits && traits.dataset.device === device) {
                const path = "/ui/devices/" + encodeURIComponent(device) + "/traits";
                const response = await fetch(path, {credentials: "same-origin"});
                if (response.ok) {
                  traits.innerHTML = await response.text();
                  traits.dataset.updated = String(Date.now());
                }
              }
            } catch (error) {
              console.warn("could not redraw " + device + ": " + error);
            } finally {
              busy.delete(device);
              if (again.delete(device)) refresh(device);
            }
          }
          function replace(card, html) {
            const holder = document.createElement("div");
            holder.innerHTML = html;
            const fresh = holder.firstElementChild;
            if (!fresh) return;
            const hadFocus = card.contains(document.activeElement);
            fresh.dataset.updated = String(Date.now());
            // A camera's card playing its live view keeps its video element (and so its picture).
            const playing = card.querySelector("video[data-live-video]");
            const slot = fresh.querySelector("video[data-live-video]");
            const keep = playing && !playing.hidden && slot;
            if (keep) slot.replaceWith(playing);
            card.replaceWith(fresh);
            if (keep) playing.play().catch(() => {});
            if (hadFocus) {
              const control = fresh.querySelector("button, input");
              if (control) control.focus();
            }
          }
          document.addEventListener("click", (event) => {
            const button = event.target.closest("button[data-path]:not([data-live])");
            if (!button) return;
            event.preventDefault();
            const body = button.dataset.body ? JSON.parse(button.dataset.body) : {};
            const what = button.getAttribute("aria-label") || button.textContent;
            send(button.dataset.path, body, button.dataset.device, what);
          });
          // A slider, a choice or a switch writes its attribute: a slider's value in the person's unit
          // ("40 % open"; the API reads it back), a choice's word, a switch's true or false.
          document.addEventListener("change", (event) => {
            const input = event.target.closest("input[data-path], select[data-path]");
            if (!input) return;
            let value = input.value;
            if (input.type === "range") value = input.dataset.unit ? input.value + " " + input.dataset.unit :
              Number(input.value);
            if (input.type === "checkbox") value = input.checked;
            send(input.dataset.path, {deviceType: input.dataset.type, trait: input.dataset.trait,
              attribute: input.dataset.attribute, value: value}, input.dataset.device,
              (input.getAttribute("aria-label") || input.dataset.attribute) + " to " + String(value));
          });
          // A command's form: each field by its kind; an empty optional field is left out.
          document.addEventListener("submit", (event) => {
            const form = event.target.closest("form[data-command]");
            if (!form) return;
            event.preventDefault();
            const args = {};
            for (const field of form.querySelectorAll("[name]")) {
              const kind = field.dataset.kind;
              if (kind === "bool") { args[field.name] = field.checked; continue; }
              if (field.value === "") continue;
              if (kind === "number") args[field.name] = Number(field.value);
              else if (kind === "json") args[field.name] = JSON.parse(field.value);
              else args[field.name] = field.value;
            }
            send(form.dataset.path, {deviceType: form.dataset.type, trait: form.dataset.trait,
              command: form.dataset.command, arguments: args}, form.dataset.device, form.dataset.command);
          });
          document.addEventListener("submit", (event) => {
            const form = event.target.closest("form[data-path]:not([data-command])");
            if (!form) return;
            event.preventDefault();
            const text = form.elements.value.value;
            let value = text;
            try { value = JSON.parse(text); } catch (error) { value = text; }
            send(form.dataset.path, {deviceType: form.dataset.type, trait: form.dataset.trait,
              attribute: form.dataset.attribute, value: value}, form.dataset.device,
              "set " + form.dataset.attribute + " to " + text);
          });
          // A camera's live view: this page's offer (no ICE servers), relayed by the bridge to the camera
          // as startLiveView (signalling only); the camera's video comes straight to the page.
          // One live view at a time, on the camera's page or its card (a card redrawn keeps its video).
          let live = null;
          function stopLive() {
            if (live) { live.close(); live = null; }
            for (const video of document.querySelectorAll("video[data-live-video]")) {
              video.srcObject = null;
              if (video.closest("article.card")) video.hidden = true;
            }
          }
          document.addEventListener("click", async (event) => {
            if (event.target.closest("button[data-live-stop]")) { stopLive(); say("Live view stopped", true); return; }
            const button = event.target.closest("button[data-live]");
            if (!button) return;
            event.preventDefault();
            stopLive();
            const video = button.closest("[data-live-box]").querySelector("video[data-live-video]");
            video.hidden = false;
            const peer = new RTCPeerConnection({iceServers: []});
            live = peer;
            peer.addTransceiver("video", {direction: "recvonly"});
            peer.addTransceiver("audio", {direction: "recvonly"});
            peer.addEventListener("track", (track) => {
              if (track.track.kind !== "video") return;
              video.srcObject = new MediaStream([track.track]);
              video.play().catch(() => {});
            });
            say("Asking the camera…", true);
            await peer.setLocalDescription(await peer.createOffer());
            await new Promise((done) => {
              if (peer.iceGatheringState === "complete") return done();
              const timer = setTimeout(done, 5000);
              peer.addEventListener("icegatheringstatechange", () => {
                if (peer.iceGatheringState === "complete") { clearTimeout(timer); done(); }
              });
            });
            let response;
            let answer = {};
            try {
              response = await fetch(button.dataset.path, {
                method: "POST", credentials: "same-origin",
                headers: {"Content-Type": "application/json", "X-CSRF-Token": csrf},
                body: JSON.stringify({trait: "google.WebRtcLiveView", command: "startLiveView",
                  arguments: {offerSdp: peer.localDescription.sdp}}),
              });
              answer = await response.json().catch(() => ({}));
            } catch (error) {
              say("The bridge did not answer: " + error, false);
              stopLive();
              return;
            }
            const sdp = answer.response && answer.response.answerSdp;
            if (!response.ok || !sdp || live !== peer) {
              say(outcome(response, answer)[0] + (sdp ? "" : " (no answer from the camera)"), false);
              if (live === peer) stopLive();
              return;
            }
            await peer.setRemoteDescription({type: "answer", sdp: sdp});
            say("Live view " + (answer.response.mediaSessionId || "") + " started", true);
          });
          if (home || document.querySelector("[data-device]")) {
            const changes = new EventSource("/api/v1/changes?shape=stream");
            changes.addEventListener("change", (event) => {
              const change = JSON.parse(event.data);
              if (home) redrawHome(); else if (change.device) refresh(change.device);
            });
            changes.addEventListener("open", () => { document.body.dataset.live = "yes"; });
          }
        })();
        """#

    /// Two linked squares: the bridge between devices.
    static let icon = """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">\
        <rect x="1" y="5" width="5" height="6" fill="#20313b"/><rect x="10" y="5" width="5" height="6" fill="#20313b"/>\
        <rect x="6" y="7" width="4" height="2" fill="#1d4ed8"/></svg>
        """

    static let style = """
        :root { font-family: system-ui, sans-serif; color: #1b1b1b; background: #fafafa; line-height: 1.4; }
        body { margin: 0; }
        header nav { display: flex; gap: 1em; align-items: center; flex-wrap: wrap; padding: .6em 1em;
          background: #20313b; }
        header a, header .role { color: #fff; }
        main { padding: 0 1em 2em; max-width: 72em; }
        .inline { display: inline; }
        .cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(15em, 1fr)); gap: .8em; }
        .card, .group, .trait { background: #fff; border: 1px solid #c9c9c9; border-radius: .4em;
          padding: .2em .8em .6em; }
        .card h3 { margin: .4em 0; font-size: 1.05em; }
        .badge { display: inline-block; padding: 0 .5em; border-radius: 1em; font-size: .85em; border: 1px solid; }
        .badge.online { background: #e3f4e6; color: #14532d; }
        .badge.offline { background: #fde8e8; color: #7f1d1d; }
        .badge.partiallyOnline { background: #fff4d6; color: #713f12; }
        .badge.unknown { background: #ececec; color: #333; }
        .history svg { display: block; max-width: 720px; background: #fff; border: 1px solid #ddd; }
        .band.online { fill: #4caf50; } .band.offline { fill: #d32f2f; } .band.unknown { fill: #bdbdbd; }
        .history polyline { stroke: #1565c0; stroke-width: 2; } .history circle { fill: #1565c0; }
        .history .marks rect { fill: #6a1b9a; } .timeline .label { margin: .6em 0 .2em; font-weight: 600; }
        .band-list { margin: .2em 0 .8em; font-size: .9em; }
        video[data-live-video] { display: block; max-width: 100%; height: auto; background: #000; }
        video[data-live-video][hidden] { display: none; }
        .locality { font-size: .85em; color: #444; }
        .reason { font-size: .85em; color: #7f1d1d; }
        .value { font-weight: bold; margin: .2em 0; }
        .values { grid-template-columns: max-content 1fr; margin: .3em 0; }
        .values dd { display: flex; flex-wrap: wrap; gap: .3em; align-items: center; }
        .values input[type=range] { flex: 1 1 8em; min-width: 6em; }
        .values button { padding: .1em .6em; min-height: 2em; }
        form.command input[type=number] { width: 6em; }
        .why { font-size: .85em; color: #7f1d1d; }
        form.command { display: inline-block; margin: .2em 0; }
        form.command fieldset { border: 1px solid #d8d8d8; border-radius: .3em; padding: .2em .5em; }
        details.raw summary { cursor: pointer; font-size: .9em; color: #333; }
        h3 small, h2 small { font-weight: normal; font-size: .75em; color: #555; }
        button { font: inherit; padding: .3em .8em; min-height: 2.2em; cursor: pointer; }
        :focus-visible { outline: 3px solid #1d4ed8; outline-offset: 2px; }
        #status.ok { color: #14532d; }
        #status.bad, .bad { color: #7f1d1d; }
        table { border-collapse: collapse; width: 100%; overflow-x: auto; display: block; }
        th, td { text-align: left; padding: .2em .5em; border-bottom: 1px solid #e5e5e5; vertical-align: top; }
        dl { display: grid; grid-template-columns: max-content 1fr; gap: 0 1em; }
        dd { margin: 0; }
        .hidden { position: absolute; left: -10000px; }
        .login input, .challenge input { font: inherit; padding: .3em; }
        .challenge { margin: 0 0 1em; }
        @media (max-width: 30em) { .cards { grid-template-columns: 1fr; } main { padding: 0 .5em 2em; } }
        """
}
