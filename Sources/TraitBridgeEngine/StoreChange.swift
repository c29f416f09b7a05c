public import FoundationEssentials
public import TraitBridgeModel
public import TraitBridgeStore

/// A change for the registry on disk.
public enum StoreChange: Sendable, Hashable {
    case upsert(DeviceRecord)
    case remove(DeviceID)
    /// An imported cloud device: what its SYNC said beyond the model, and the device as imported.
    case saveCloudDevice(CloudOriginRecord, DeviceRecord)
    /// The user's name and room for a device (empty: back to the sources').
    case placement(DeviceID, UserPlacement)
    /// The whole home layout (``HomeLayoutCodec``), after an edit.
    case layout([UInt8])
    /// An automation's definition (`nil`: removed), its history, the time the bridge last ran.
    case automation(String, [UInt8]?)
    case automationHistory(String, [UInt8])
    case clock(Date)
}

extension DeviceStore.Batch {
    /// One registry transaction of these changes, in order.
    init(_ changes: [StoreChange]) {
        self.init()
        for change in changes {
            switch change {
            case .upsert(let record): upsert(record)
            case .remove(let id): remove(id)
            case .saveCloudDevice(let origin, let device): cloudDevices.append((origin, device))
            case .placement(let id, let placement): placements.append((id, placement))
            case .layout(let bytes): layout = bytes
            case .automation(let id, let definition): automations.append((id, definition))
            case .automationHistory(let id, let history): histories.append((id, history))
            case .clock(let date): clock = date
            }
        }
    }
}
