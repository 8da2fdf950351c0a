import Foundation
import ReleaseGeneration
import ReleasePipeline
import ReleaseSystem

/// A digest of everything that decides what a generated package compiles to: its manifest,
/// every file of its targets except the `ContextSDK` target's resources (a customer's
/// configuration and models, which are data), the toolchain and the build flags. Customers
/// with the same key have the same test binary; only their resource bundles differ.
struct CompileKey: Hashable, Sendable, CustomStringConvertible {
  let digest: String

  /// The first 12 hex digits, as the run's output names a key.
  var short: String { String(digest.prefix(12)) }
  var description: String { short }

  /// The key of the package in `directory`, built by `toolchain` (all of `swift --version`)
  /// with `flags`.
  static func of(package directory: URL, toolchain: String, flags: [String]) throws -> CompileKey {
    var hasher = SHA256Hasher()
    func add(_ text: String) {
      var bytes = Data(text.utf8)
      bytes.append(0)
      hasher.update(bytes)
    }
    add("toolchain")
    add(toolchain)
    add("flags")
    for flag in flags { add(flag) }
    for path in try compileInputs(in: directory) {
      let digest = try SHA256Digest.hex(ofFileAt: directory.appendingPathComponent(path))
      add(path)
      add(digest)
    }
    return CompileKey(digest: hasher.finalizeHex())
  }

  /// The package's files a build compiles from, relative and sorted by their bytes:
  /// `Package.swift` and every file below `Sources` and `Tests` except the resources.
  static func compileInputs(in directory: URL) throws -> [String] {
    let resources = PackageGenerator.resourcesDirectory + "/"
    return try PackageFiles.relative(in: directory).filter { path in
      path == PackageGenerator.manifestFile
        || ((path.hasPrefix("Sources/") || path.hasPrefix("Tests/")) && !path.hasPrefix(resources))
    }
    .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
  }
}

/// The resource bundle SwiftPM makes for the `ContextSDK` target, as the tool predicts it:
/// each entry of the target's resources directory is declared `.copy` (`Package.swift.tmpl`),
/// and SwiftPM copies a `.copy` path into the bundle under its last path component, byte for
/// byte. So the bundle holds exactly the files of `Sources/ContextSDK/Resources`, at the same
/// relative paths.
enum ResourceBundle {
  /// The bundle's files, relative path to the file in the package that it copies.
  static func predicted(forPackage directory: URL) throws -> [String: URL] {
    let resources = directory.appendingPathComponent(PackageGenerator.resourcesDirectory)
    var files: [String: URL] = [:]
    for path in try PackageFiles.relative(in: resources) {
      files[path] = resources.appendingPathComponent(path)
    }
    return files
  }

  /// Nil when `bundle` holds exactly the predicted files with the same bytes, else the first
  /// difference in words.
  static func difference(predicted: [String: URL], bundle: URL) throws -> String? {
    let built = Set(try PackageFiles.relative(in: bundle))
    if let extra = built.subtracting(predicted.keys).sorted().first {
      return "SwiftPM's bundle has \(extra), which the prediction lacks"
    }
    for (path, source) in predicted.sorted(by: { $0.key < $1.key }) {
      guard built.contains(path) else { return "SwiftPM's bundle lacks \(path)" }
      if !FileManager.default.contentsEqual(
        atPath: source.path, andPath: bundle.appendingPathComponent(path).path)
      {
        return "SwiftPM's copy of \(path) differs from the prediction"
      }
    }
    return nil
  }

  /// Makes `bundle` hold exactly the predicted files, hard-linked where the file system allows
  /// (copied otherwise): the bundle of a customer tested with a compile key's test binary.
  static func assemble(_ predicted: [String: URL], at bundle: URL) throws {
    let fileManager = FileManager.default
    try? fileManager.removeItem(at: bundle)
    do {
      for (path, source) in predicted.sorted(by: { $0.key < $1.key }) {
        let destination = bundle.appendingPathComponent(path)
        try AtomicFile.createDirectory(destination.deletingLastPathComponent())
        if (try? fileManager.linkItem(at: source, to: destination)) == nil {
          try fileManager.copyItem(at: source, to: destination)
        }
      }
      try AtomicFile.createDirectory(bundle)
    } catch let error as SystemError {
      throw error
    } catch {
      throw SystemError.cannotWrite(path: bundle.path, reason: SystemError.reason(error))
    }
  }
}

/// Regular files below a directory, relative, `.build` excluded.
enum PackageFiles {
  static func relative(in directory: URL) throws -> [String] {
    guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
    guard let enumerator = FileManager.default.enumerator(atPath: directory.path) else {
      throw SystemError.cannotRead(path: directory.path, reason: "not a directory")
    }
    var files: [String] = []
    while let path = enumerator.nextObject() as? String {
      if path == ".build" || path.hasPrefix(".build/") {
        enumerator.skipDescendants()
        continue
      }
      if enumerator.fileAttributes?[.type] as? FileAttributeType == .typeRegular { files.append(path) }
    }
    return files
  }
}
