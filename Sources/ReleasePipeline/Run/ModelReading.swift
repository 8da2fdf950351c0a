import Foundation
import ReleaseJSON
import ReleaseManifest
import ReleaseModels
import ReleaseSystem

/// Reading the models of the store: the load step of a run and `release verify`'s
/// reproduction read them the same way.
extension ModelFacts {
  /// Hashes and parses each model once, however many customers share it. Every broken
  /// model is reported, not only the first. A model a URL store could not deliver (a
  /// transfer that failed after its retries) is not bad input: it is returned as unavailable,
  /// and only the customers that use it fail.
  package static func read(of customers: [Customer], store: ModelStore, storePath: String) throws
    -> (facts: [ModelReference: ModelFacts], unavailable: [ModelReference: String])
  {
    let references = Set(customers.flatMap { $0.customModels.map(\.reference) }).sorted()
    var facts: [ModelReference: ModelFacts] = [:]
    var unavailable: [ModelReference: String] = [:]
    var problems: [Diagnostic] = []
    for reference in references {
      let displayPath = "\(storePath)/\(reference.relativePath)"
      do {
        let file = try store.localFile(for: reference)
        let info = try CoreMLModelInfo.load(contentsOf: file)
        let (sha256, size) = try SHA256Digest.hexAndSize(ofFileAt: file)
        facts[reference] = ModelFacts(
          reference: reference, file: file, sha256: sha256, size: size, info: info)
      } catch let error as RemoteModelStoreError {
        if case .downloadFailed = error {
          unavailable[reference] = error.description
        } else {
          problems.append(Diagnostic(file: displayPath, path: "", message: "\(error)"))
        }
      } catch {
        problems.append(Diagnostic(file: displayPath, path: "", message: "\(error)"))
      }
    }
    if !problems.isEmpty { throw ValidationFailure(problems) }
    return (facts, unavailable)
  }
}
