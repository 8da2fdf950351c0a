import Foundation
import ReleaseCore
import ReleasePipeline

/// `release verify`, first step: the releases its arguments name, in order: a zip or
/// release.json (its directory), a release directory, or a dist directory (every
/// `<id>/<version>/` below it). An argument that names none is a usage error, before
/// anything is read.
package struct FindReleasesStep: RequiredStep {
  package let name = "find releases"

  package init() {}

  package func run(_ paths: [String], _ context: ReleaseContext) throws -> [ReleaseLocation] {
    try paths.flatMap { try Self.releases($0, root: context.services) }
  }

  static func releases(_ argument: String, root services: Services) throws -> [ReleaseLocation] {
    let url = services.resolve(argument)
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
      throw ReleaseError.usage("verify \(argument): no such file or directory")
    }
    if !isDirectory.boolValue {
      guard url.pathExtension == "zip" || url.lastPathComponent == ReleaseRecord.fileName else {
        throw ReleaseError.usage("verify \(argument): expected a .zip, a release.json or a directory")
      }
      return [
        ReleaseLocation(
          directory: url.deletingLastPathComponent(),
          namedArchive: url.pathExtension == "zip" ? url.lastPathComponent : nil)
      ]
    }
    if hasRecord(url) { return [ReleaseLocation(directory: url)] }
    let found = children(of: url).flatMap { customer in
      children(of: customer).filter(hasRecord).map { ReleaseLocation(directory: $0) }
    }
    guard !found.isEmpty else {
      throw ReleaseError.usage("verify \(argument): no release.json in it or in <id>/<version>/ below it")
    }
    return found
  }

  /// The entries of a directory that are not hidden, sorted by name.
  private static func children(of directory: URL) -> [URL] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.sorted().filter { !$0.hasPrefix(".") }.map { directory.appendingPathComponent($0) }
  }

  private static func hasRecord(_ directory: URL) -> Bool {
    FileManager.default.fileExists(atPath: directory.appendingPathComponent(ReleaseRecord.fileName).path)
  }
}
