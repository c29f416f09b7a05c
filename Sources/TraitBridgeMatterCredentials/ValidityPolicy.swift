/// How chain verification treats not-before and not-after, for a device that knows the time and one
/// that does not. Matter devices often have no real-time clock; the SDK then falls back to the
/// Last Known Good UTC Time (Matter Core §3.5.6.1, the SDK's `CASESession::SetEffectiveTime`):
/// a time kept in storage, never earlier than the firmware's build time, moved forward only at
/// commissioning (to the latest not-before of the installed chain) and on firmware update.
public enum ValidityPolicy: Sendable, Hashable, CustomStringConvertible {
    /// The device has trusted real time: each certificate must satisfy not-before ≤ now ≤ not-after
    /// (not-after 0 never expires). The SDK's `CurrentChipEpochTime`.
    case currentTime(MatterTime)
    /// No real time, only the Last Known Good Time. Not-before cannot be checked (that time lags
    /// behind the real one), but a not-after earlier than it proves the certificate expired, so that
    /// is refused. The SDK computes the same result (`kExpiredAtLastKnownGoodTime`); its default
    /// policy then lets it pass and leaves refusing to an injected `CertificateValidityPolicy`.
    /// This one refuses, on the reasoning of the SDK's own comment: the result "is a reliable
    /// indicator that the certificate in question is expired".
    case lastKnownGoodTime(MatterTime)
    /// No time check at all. The SDK does this when installing a chain (AddNOC, UpdateNOC:
    /// `FabricTable::ValidateIncomingNOCChain` sets no time), since "installed certificates should
    /// be valid at the time of installation by definition"; CASE then checks time.
    case ignoringTime

    /// Why `certificate` is outside this policy's time, or nil when it is inside.
    func violation(of certificate: OperationalCertificate) -> ChainError.Check? {
        let notAfter = certificate.notAfter
        switch self {
        case .currentTime(let now):
            if now < certificate.notBefore { return .notYetValid(notBefore: certificate.notBefore, now: now) }
            if !notAfter.isNoWellDefinedExpiration, now > notAfter { return .expired(notAfter: notAfter, now: now) }
        case .lastKnownGoodTime(let lastKnownGood):
            if !notAfter.isNoWellDefinedExpiration, lastKnownGood > notAfter {
                return .expired(notAfter: notAfter, now: lastKnownGood)
            }
        case .ignoringTime:
            break
        }
        return nil
    }

    public var description: String {
        switch self {
        case .currentTime(let now): "current time \(now)"
        case .lastKnownGoodTime(let time): "last known good time \(time)"
        case .ignoringTime: "ignoring time"
        }
    }
}
