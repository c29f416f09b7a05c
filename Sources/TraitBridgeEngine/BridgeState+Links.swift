public import FoundationEssentials
import TraitBridgeCloud
import TraitBridgeJSON
public import TraitBridgeModel

/// Cloud links: partner clouds whose fulfillment URL the bridge calls (SYNC, QUERY, EXECUTE). Their
/// devices are imported like a SYNC file's, under the link's name as the source instance, so the
/// chain is link → device → trait; the HTTP client lives outside the engine and hands it answers.
extension BridgeState {
    /// A link's SYNC answer: its devices appear, change, and those it no longer lists disappear.
    /// A device id another link (or a SYNC file) already holds is refused, with the reason.
    public mutating func importLinkSync(_ body: [UInt8], link: String, now: Date) -> BridgeEffects {
        var effects = BridgeEffects()
        guard var cloud else { return effects }
        cloud.instance = link
        var result: SyncImport
        do {
            result = try cloud.importSync(body, source: "link \(link) SYNC", now: now)
        } catch {
            linkFailed(link, error: "SYNC answer refused: \(error)", state: .unknown, now: now, effects: &effects)
            return effects
        }
        let listed = Set(result.devices.map(\.origin.c2cID))
        result.devices.removeAll { item in
            guard let held = cloudImport.devices[item.origin.c2cID] else { return false }
            // Said again as it was (every scheduled SYNC): kept as it is, values and connectivity too.
            if held.source.instance == link { return held.origin == item.origin }
            effects.log(
                .warning,
                "link \(link): device id '\(item.origin.c2cID)' is already held by \(held.source.instance); not imported",
                ["tb.link": link])
            return true
        }
        dropLinkDevices(link, keeping: listed, why: "is gone from its SYNC", now: now, effects: &effects)
        _ = importCloud(result, now: now, persist: false, effects: &effects)
        for problem in result.problems.prefix(20) {
            effects.log(.notice, "link \(link) SYNC: \(problem)", ["tb.link": link])
        }
        if cloudImport.links.succeeded(link) || !result.devices.isEmpty { sources.markHealthChanged() }
        publishHealthIfChanged(effects: &effects)
        return effects
    }

    /// The devices of `link` that are not in `keeping` go (the partner no longer lists them, or
    /// the link itself went).
    mutating func dropLinkDevices(
        _ link: String, keeping: Set<String>, why: String, now: Date, effects: inout BridgeEffects
    ) {
        for (c2cID, runtime) in cloudImport.devices.devices(ofInstance: link) where !keeping.contains(c2cID) {
            cloudImport.devices.set(c2cID, nil)
            detachCloud(runtime, effects: &effects)
            if !runtime.isStandalone {
                refresh(runtime.target, now: now, effects: &effects, republishDescription: true)
            }
            effects.log(.info, "link \(link): \(c2cID) \(why)", ["tb.link": link])
            sources.markHealthChanged()
        }
    }

    /// The links the bridge now has (links added or removed while it runs): a removed link's
    /// devices go, and its commands are no longer sent.
    public mutating func setCloudLinks(
        _ links: Set<String>, staleness: [String: Duration] = [:], now: Date
    ) -> BridgeEffects {
        var effects = BridgeEffects()
        let (removed, changed) = cloudImport.links.setLinks(links, staleness: staleness)
        for gone in removed {
            // Its commands still waiting end now: nothing will answer them.
            for requestID in commands.openRequests(to: gone) {
                let failure = CommandFailure(.deviceOffline, "cloud link \(gone) was removed before it answered")
                settleLinkRequest(requestID, .failure(failure), now: now, effects: &effects)
            }
            dropLinkDevices(gone, keeping: [], why: "went with its link", now: now, effects: &effects)
        }
        if changed { sources.markHealthChanged() }
        publishHealthIfChanged(effects: &effects)
        return effects
    }

    /// A partner's push (Report State): its states as a QUERY answer's, then its notifications
    /// (only pushes carry them, so a QUERY answer is not read for them).
    public mutating func applyLinkPush(_ body: [UInt8], link: String, now: Date) -> BridgeEffects {
        var effects = applyLinkAnswer(body, link: link, now: now)
        handleLinkNotifications(body, link: link, now: now, effects: &effects)
        return effects
    }

    /// A link's QUERY or EXECUTE answer: values and connectivity of that link's devices only.
    public mutating func applyLinkAnswer(_ body: [UInt8], link: String, now: Date) -> BridgeEffects {
        var effects = BridgeEffects()
        let summary = handleCloudReports(body, source: "link \(link)", instance: link, now: now, effects: &effects)
        if summary["status"] == .string("ok") {
            if cloudImport.links.succeeded(link) {
                sources.markHealthChanged()
                publishHealthIfChanged(effects: &effects)
            }
        } else {
            // An answer that cannot be read is a link that does not work: its devices are unknown.
            let message = summary["message"].flatMap { if case .string(let text) = $0 { text } else { nil } }
            linkFailed(
                link, error: "answer refused: \(message ?? "unreadable")", state: .unknown, now: now, effects: &effects)
        }
        return effects
    }

    /// A link's request failed: every trait of its devices is `state` (offline when the partner
    /// refused or is gone, unknown when it did not answer in time), saying the link, the error and
    /// since when it has failed.
    public mutating func linkFailed(
        _ link: String, error: String, state: TraitConnectivityState, now: Date
    ) -> BridgeEffects {
        var effects = BridgeEffects()
        linkFailed(link, error: error, state: state, now: now, effects: &effects)
        return effects
    }

    mutating func linkFailed(
        _ link: String, error: String, state: TraitConnectivityState, now: Date, effects: inout BridgeEffects
    ) {
        let (since, isChanged) = cloudImport.links.failed(link, error: error, now: now)
        if isChanged { sources.markHealthChanged() }
        effects.log(.warning, "cloud link \(link): \(error)", ["tb.link": link])
        let reason = ConnectivityReason.linkFailed(link: link, error: error, since: since)
        for (_, runtime) in cloudImport.devices.devices(ofInstance: link) {
            let changed = try? graph.modifyDevice(runtime.target) { device in
                device.setConnectivity(state, locality: .remote, reason: reason, forTraitsOf: runtime.source, time: now)
            }
            if changed == true {
                if configuration.recordsHistory {
                    recordConnectivity(of: runtime.target, forTraitsOf: runtime.source, effects: &effects)
                }
                refresh(runtime.target, now: now, effects: &effects, valuesChanged: true)
            }
        }
        publishHealthIfChanged(effects: &effects)
    }

    /// Once a second: a link's device that no answer has spoken of within the link's staleness
    /// (a partner whose answers leave it out) has its traits `unknown`, saying since when. A
    /// failing link is not swept: its failure already says why.
    mutating func sweepStaleLinkDevices(now: Date, effects: inout BridgeEffects) {
        guard cloudImport.links.takeSweep(now: now) else { return }
        for (c2cID, runtime) in cloudImport.devices.all where !runtime.isStale {
            let link = runtime.source.instance
            guard let lastAnswer = runtime.lastAnswer,
                cloudImport.links.isStale(link: link, lastAnswer: lastAnswer, now: now)
            else { continue }
            let budget = cloudImport.links.budget(of: link)
            cloudImport.devices.modify(c2cID) { $0.isStale = true }
            let reason = ConnectivityReason.stale(lastSeen: lastAnswer, budgetSeconds: Int(budget.components.seconds))
            let changed = try? graph.modifyDevice(runtime.target) { device in
                device.setConnectivity(
                    .unknown, locality: .remote, reason: reason, forTraitsOf: runtime.source, time: now)
            }
            if changed == true {
                if configuration.recordsHistory {
                    recordConnectivity(of: runtime.target, forTraitsOf: runtime.source, effects: &effects)
                }
                refresh(runtime.target, now: now, effects: &effects, valuesChanged: true)
            }
            effects.log(
                .notice, "link \(link): no answer has mentioned \(c2cID) since \(lastAnswer)", ["tb.link": link])
        }
    }

    /// Each configured link on the health topic: its devices, and whether it fails, since when, why.
    func linkHealth() -> JSONObject {
        cloudImport.links.health { cloudImport.devices.count(ofInstance: $0) }
    }

    /// The cloud ids of a link's devices, for its QUERY.
    public func linkDeviceIDs(_ link: String) -> [String] {
        cloudImport.devices.devices(ofInstance: link).map(\.c2cID)
    }
}
