import FoundationEssentials
import TraitBridgeCloud

/// The commands in flight and the requests that wait on them: each command waiting for its
/// device's echo (or its cloud link's answer), each EXECUTE request waiting for its devices'
/// outcomes, each group command or scene run waiting for its members', and the recent wrong PINs.
///
/// The one owner of that bookkeeping: it numbers every job with one counter (an EXECUTE and a
/// fan-out job never share a number), reads no clock (deadlines come from the events' `now`), and
/// hands back what ended for the caller to answer. It never calls out while it changes: the caller
/// answers after the tracker is consistent, so an answer that started more commands could not be
/// overwritten (the engine used to reassign its whole list after a loop that called out).
struct CommandTracker: Sendable {
    private var waiting: [PendingCommand] = []
    private var executeJobs: [Int: ExecuteJob] = [:]
    private var fanOutJobs: [Int: FanOutJob] = [:]
    private var jobCount = 0
    private var pinFailures: [Date] = []
    /// Cameras' live views: offers waiting for a camera's answer and the sessions open.
    var liveViews = CameraSessions(now: Date(timeIntervalSince1970: 0))

    /// Commands waiting for their echo (bounded by `limits.pendingCommands`).
    var waitingCount: Int { waiting.count }

    // MARK: Commands

    /// A command was sent and waits for its echo (or its link's answer) until its deadline.
    mutating func track(_ command: PendingCommand) {
        waiting.append(command)
    }

    /// Takes out, in the order they were sent, the waiting commands `isDone` says are done.
    mutating func settle(where isDone: (PendingCommand) -> Bool) -> [PendingCommand] {
        guard !waiting.isEmpty else { return [] }
        var done: [PendingCommand] = []
        waiting.removeAll { command in
            guard isDone(command) else { return false }
            done.append(command)
            return true
        }
        return done
    }

    /// Takes out the commands whose deadline is at or before `now`.
    mutating func expire(at now: Date) -> [PendingCommand] {
        settle { $0.deadline <= now }
    }

    /// The ids of the link requests still open toward `link`, sorted.
    func openRequests(to link: String) -> [String] {
        waiting.flatMap { $0.openLinkRequests.filter { $0.value.link == link }.keys }.sorted()
    }

    /// Changes the command that sent link request `requestID`; `body` says whether the command
    /// stays waiting. Returns the command as `body` left it, or `nil` when none sent that request.
    mutating func updateCommand(
        sentRequest requestID: String, _ body: (inout PendingCommand) -> Bool
    ) -> PendingCommand? {
        guard let index = waiting.firstIndex(where: { $0.openLinkRequests[requestID] != nil }) else { return nil }
        var command = waiting[index]
        if body(&command) {
            waiting[index] = command
        } else {
            waiting.remove(at: index)
        }
        return command
    }

    // MARK: Jobs

    private mutating func nextJob() -> Int {
        defer { jobCount += 1 }
        return jobCount
    }

    /// An EXECUTE request starts: its job number.
    mutating func startExecute(_ job: ExecuteJob) -> Int {
        let id = nextJob()
        executeJobs[id] = job
        return id
    }

    /// Whether EXECUTE job `id` already has an outcome for `c2cID` (a device listed twice).
    func hasOutcome(job id: Int, for c2cID: String) -> Bool {
        executeJobs[id]?.outcomes[c2cID] != nil
    }

    /// Records one device's outcome; returns the job, taken out, once every device has one.
    mutating func record(_ outcome: ExecuteOutcome?, job id: Int) -> ExecuteJob? {
        guard var job = executeJobs[id] else { return nil }
        if let outcome { job.outcomes[outcome.c2cID] = outcome }
        guard job.outcomes.count >= job.order.count else {
            executeJobs[id] = job
            return nil
        }
        executeJobs.removeValue(forKey: id)
        return job
    }

    /// The EXECUTE jobs still waiting, by job number.
    var waitingExecutes: [(id: Int, job: ExecuteJob)] {
        executeJobs.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// A group command or scene run starts with `open` commands: its job number.
    mutating func startFanOut(_ job: FanOutJob, open: Int) -> Int {
        let id = nextJob()
        var job = job
        job.open = open
        fanOutJobs[id] = job
        return id
    }

    /// One command of fan-out job `id` ended: its entries take the outcome. Returns the job,
    /// taken out, when it was the last one open.
    mutating func settle(
        fanOut id: Int, command: Int, status: String, failure: CommandFailure?, note: String?
    ) -> FanOutJob? {
        guard var job = fanOutJobs[id], command < job.commands.count else { return nil }
        for index in job.commands[command] {
            job.entries[index].status = failure == nil ? status : "refused"
            job.entries[index].code = failure?.code.rawValue
            job.entries[index].message = failure?.message ?? note
        }
        job.open -= 1
        guard job.open <= 0 else {
            fanOutJobs[id] = job
            return nil
        }
        fanOutJobs.removeValue(forKey: id)
        return job
    }

    /// Takes fan-out job `id` out whatever is still open (one with no command at all).
    mutating func takeFanOut(_ id: Int) -> FanOutJob? {
        fanOutJobs.removeValue(forKey: id)
    }

    // MARK: PIN guard

    /// How many wrong PINs were given within `lockoutSeconds` before `now` (older ones are forgotten).
    mutating func recentWrongPins(now: Date, lockoutSeconds: Double) -> Int {
        pinFailures.removeAll { now.timeIntervalSince($0) >= lockoutSeconds }
        return pinFailures.count
    }

    /// A wrong (or missing) PIN at `now`; at most `keeping` are remembered.
    mutating func recordWrongPin(now: Date, keeping: Int) {
        pinFailures.append(now)
        let kept = max(0, keeping)
        if pinFailures.count > kept { pinFailures.removeFirst(pinFailures.count - kept) }
    }
}
