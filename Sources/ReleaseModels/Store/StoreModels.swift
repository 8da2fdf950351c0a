import Foundation

/// Every model of a store by SHA-256 and by flow and version (hashed once, or from a URL
/// store's index).
public struct StoreModels: Sendable {
  public private(set) var byHash: [String: ModelReference] = [:]
  public private(set) var hashes: [ModelReference: String] = [:]
  public var count: Int { hashes.count }

  /// `known`: digests already taken this run (the selected customers' models), not taken again.
  /// `digests`: where a directory store's other models' digests are remembered between runs
  /// (see `ModelDigestCache` for why trusting it is safe); without it every model is read.
  public init(_ store: ModelStore, known: [ModelReference: String] = [:], digests: ModelDigestCache? = nil)
    throws
  {
    let directory = store as? DirectoryModelStore
    for flow in try store.flowNames() {
      for version in try store.versions(of: flow) {
        let reference = ModelReference(flowName: flow, version: version)
        let sha256: String
        if let digest = known[reference] {
          sha256 = digest
        } else if let digests, let directory {
          sha256 = try digests.sha256(of: directory.localFile(for: reference))
        } else {
          sha256 = try store.sha256(of: reference)
        }
        byHash[sha256] = reference
        hashes[reference] = sha256
      }
    }
  }
}
