/// Which model made a decision: the flow, the model version and whether the model was bundled
/// or downloaded over the air. Record it with every outcome event of that decision (the prompt
/// shown, the purchase after it), so that your analytics can count devices and conversions per
/// flow and model version: a new model rolled out to a share of devices is judged on those
/// counts against the model the other devices run.
///
/// Its two forms are stable across SDK versions:
/// - `description`: `<flow>@<modelVersion>/<source>`, e.g. `onboarding_upsell@74/downloaded`;
/// - `eventProperties`: `["flow": "onboarding_upsell", "modelVersion": "74",
///   "modelSource": "downloaded"]`, every value a string.
///
/// The source is `bundled` or `downloaded` (`ResolvedModel.Source.rawValue`).
public struct Attribution: Hashable, Sendable, CustomStringConvertible {
  /// The keys of `eventProperties`.
  public enum Key {
    public static let flow = "flow"
    public static let modelVersion = "modelVersion"
    public static let modelSource = "modelSource"
  }

  public let flowName: String
  public let modelVersion: Int
  public let source: ResolvedModel.Source

  init(flowName: String, modelVersion: Int, source: ResolvedModel.Source) {
    self.flowName = flowName
    self.modelVersion = modelVersion
    self.source = source
  }

  /// `<flow>@<modelVersion>/<source>`, e.g. `onboarding_upsell@74/downloaded`.
  public var description: String { "\(flowName)@\(modelVersion)/\(source.rawValue)" }

  /// The attribution as event properties, every value a string: `flow` (the flow's name),
  /// `modelVersion` (decimal) and `modelSource` (`bundled` or `downloaded`).
  public var eventProperties: [String: String] {
    [Key.flow: flowName, Key.modelVersion: String(modelVersion), Key.modelSource: source.rawValue]
  }
}
