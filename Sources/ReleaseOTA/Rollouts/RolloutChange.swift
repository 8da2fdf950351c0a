import Foundation
import ReleaseAlignment
import ReleaseCore
import ReleaseEvaluation
import ReleaseManifest
import ReleaseModels

/// What the rollout commands do to `rollouts.json`, as pure functions of the state, the
/// customer's manifest entry and the model's facts: each returns the new state or refuses with
/// one line naming the command, what was found and what was expected.
package enum RolloutChange {
  /// Why a change is refused (bad input: exit 2, nothing written).
  package enum Refusal: Error, CustomStringConvertible, Equatable {
    case foreignFlow(command: String, customer: String, flowName: String, flows: [String])
    case notAboveBundled(command: String, flowName: String, version: Int, bundled: Int)
    case unaligned(command: String, reason: String)
    /// The model file's own metadata names another flow, version or flow id than where it is
    /// offered: a file copied under the wrong name.
    case metadataMismatch(command: String, model: String, key: String, found: String, says: String)
    case retracted(command: String, flowName: String, version: Int)
    case nothingOffered(command: String, customer: String, flowName: String)
    case notOffered(command: String, flowName: String, version: Int, offered: [Int])

    package var description: String {
      switch self {
      case .foreignFlow(let command, let customer, let flowName, let flows):
        return
          "\(command): \(customer) has no \(flowName) model in customers.json (its flows: \(flows.joined(separator: ", "))); a customer only gets models of its own flows"
      case .notAboveBundled(let command, let flowName, let version, let bundled):
        return
          "\(command): \(flowName) v\(version) is not above the bundled v\(bundled); devices already run v\(bundled), offer a newer model"
      case .unaligned(let command, let reason):
        return "\(command): \(reason); no released SDK version can run it"
      case .metadataMismatch(let command, let model, let key, let found, let says):
        return "\(command): \(model) has \(key) \"\(found)\" in its metadata; \(says)"
      case .retracted(let command, let flowName, let version):
        return
          "\(command): \(flowName) v\(version) was rolled back; a retracted version is never offered again (offer a new version)"
      case .nothingOffered(let command, let customer, let flowName):
        return
          "\(command): nothing of \(flowName) is offered over the air to \(customer) (see 'release ota status \(customer)')"
      case .notOffered(let command, let flowName, let version, let offered):
        let list = offered.isEmpty ? "none" : offered.map { "v\($0)" }.joined(separator: ", ")
        return "\(command): \(flowName) v\(version) is not offered over the air (offered: \(list))"
      }
    }
  }

  /// The model a rollout offers, as read from the store.
  package struct OfferedModel: Sendable {
    package var reference: ModelReference
    package var info: CoreMLModelInfo
    package var sha256: String
    package var size: Int64

    package init(reference: ModelReference, info: CoreMLModelInfo, sha256: String, size: Int64) {
      self.reference = reference
      self.info = info
      self.sha256 = sha256
      self.size = size
    }
  }

  /// `release rollout`: offers `model` to `percent`% of the customer's devices — a new
  /// challenger, or a new percentage for one already offered (100 promotes it). Resumes the
  /// flow if it was paused. A new offer, or a new percentage, starts a new split on `today`
  /// (the offer's `since`).
  package static func rollout(
    _ state: RolloutState, customer: Customer, model: OfferedModel, percent: Int,
    catalog: SignalCatalog, feature: Feature?, sdkVersion: SemanticVersion, command: String,
    today: OutcomeDate, newSalt: () -> String
  ) throws -> RolloutState {
    let bundled = try bundledModel(of: customer, flowName: model.reference.flowName, command: command)
    guard model.reference.version > bundled.modelVersion else {
      throw Refusal.notAboveBundled(
        command: command, flowName: bundled.flowName, version: model.reference.version,
        bundled: bundled.modelVersion)
    }
    if let mismatch = ModelAlignment.metadataMismatches(
      model.info, reference: model.reference, flowId: bundled.flowId
    ).first {
      throw Refusal.metadataMismatch(
        command: command, model: model.reference.description, key: mismatch.key, found: mismatch.found,
        says: "\(mismatch.source) says \(mismatch.expected)")
    }
    // The newest released SDK is the one being released now; a model it cannot run, no
    // device can run.
    if let gap = ModelAlignment.gaps(
      inputs: model.info.inputNames, catalog: catalog, sdkVersion: sdkVersion, feature: feature
    ).first {
      throw Refusal.unaligned(
        command: command, reason: "\(model.reference) \(ModelAlignment.describe(gap, sdkVersion: sdkVersion))"
      )
    }
    var flow = state.flow(customer.id, bundled.flowName) ?? RolloutState.Flow(paused: false, models: [])
    if let existing = flow.offer(model.reference.version) {
      if existing.status == .retracted {
        throw Refusal.retracted(
          command: command, flowName: bundled.flowName, version: model.reference.version)
      }
      flow.models = flow.models.map { offer in
        guard offer.modelVersion == model.reference.version else { return offer }
        var changed = offer
        if changed.rolloutPercent != percent { changed.startSplit(percent: percent, today: today) }
        changed.rolloutPercent = percent
        changed.status = .active
        return changed
      }
    } else {
      flow.models.append(
        .init(
          modelVersion: model.reference.version, rolloutPercent: percent, status: .active, salt: newSalt(),
          since: today, splits: [.init(percent: percent, since: today)]))
      flow.models.sort { $0.modelVersion < $1.modelVersion }
    }
    // Offering a model is an explicit decision to move the flow again.
    flow.paused = false
    flow.models = flow.models.map { offer in
      var resumed = offer
      if resumed.status == .paused { resumed.status = .active }
      // An offer paused on its own (by `ota evaluate --apply`) recorded a split at 0 %.
      if resumed.status == .active, let last = resumed.splits.last, last.percent != resumed.rolloutPercent {
        resumed.startSplit(percent: resumed.rolloutPercent, today: today)
      }
      return resumed
    }
    var changed = state
    changed.customers[customer.id, default: [:]][bundled.flowName] = flow
    return changed
  }

  /// `release pause`: devices download nothing new for the flow and keep what they run.
  package static func pause(_ state: RolloutState, customer: Customer, flowName: String, command: String)
    throws
    -> RolloutState
  {
    _ = try bundledModel(of: customer, flowName: flowName, command: command)
    guard var flow = state.flow(customer.id, flowName),
      flow.models.contains(where: { $0.status != .retracted })
    else {
      throw Refusal.nothingOffered(command: command, customer: customer.id, flowName: flowName)
    }
    flow.paused = true
    flow.models = flow.models.map { offer in
      var paused = offer
      if paused.status == .active { paused.status = .paused }
      return paused
    }
    var changed = state
    changed.customers[customer.id, default: [:]][flowName] = flow
    return changed
  }

  /// `release rollback`: retracts the version; devices that downloaded it delete it and fall
  /// back to the best remaining version or the bundled model. It is never offered again. Its
  /// percentage drops to 0 on `today` (its `since`).
  package static func rollback(
    _ state: RolloutState, customer: Customer, flowName: String, version: Int, command: String,
    today: OutcomeDate
  ) throws -> RolloutState {
    _ = try bundledModel(of: customer, flowName: flowName, command: command)
    guard var flow = state.flow(customer.id, flowName), flow.offer(version) != nil else {
      throw Refusal.notOffered(
        command: command, flowName: flowName, version: version,
        offered: state.flow(customer.id, flowName)?.models.map(\.modelVersion) ?? [])
    }
    flow.models = flow.models.map { offer in
      guard offer.modelVersion == version else { return offer }
      var retracted = offer
      if retracted.rolloutPercent != 0 { retracted.startSplit(percent: 0, today: today) }
      retracted.status = .retracted
      retracted.rolloutPercent = 0
      return retracted
    }
    var changed = state
    changed.customers[customer.id, default: [:]][flowName] = flow
    return changed
  }

  /// The customer's manifest entry for the flow: a customer only ever gets models of its own
  /// flows, whose data trained them.
  package static func bundledModel(of customer: Customer, flowName: String, command: String) throws
    -> CustomModel
  {
    guard let model = customer.customModels.first(where: { $0.flowName == flowName }) else {
      throw Refusal.foreignFlow(
        command: command, customer: customer.id, flowName: flowName,
        flows: customer.customModels.map(\.flowName))
    }
    return model
  }
}
