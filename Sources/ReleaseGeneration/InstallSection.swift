import Foundation

/// The README's installation steps, which work as written: the package's real URL in
/// `.package(url:from:)` when customers fetch it from an `https://` git repository, otherwise
/// how to add the delivered zip by path. A URL's user name and password (a token a publishing
/// job pushes with) never reach a README.
public enum InstallSection {
  /// The URL a README may show customers: `url` when it is `https://`, without its user info;
  /// nil for any other (a local `file://` repository, ssh) or none.
  public static func shownURL(_ url: String?) -> String? {
    guard let url, url.lowercased().hasPrefix("https://") else { return nil }
    let shown = withoutCredentials(url)
    guard let parsed = URL(string: shown), parsed.host?.isEmpty == false else { return nil }
    return shown
  }

  /// `url` without the user info of its authority (`https://user:token@host/…` →
  /// `https://host/…`); other text as it is.
  public static func withoutCredentials(_ url: String) -> String {
    guard let schemeEnd = url.range(of: "://") else { return url }
    let rest = url[schemeEnd.upperBound...]
    let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    guard let at = authority.lastIndex(of: "@") else { return url }
    return String(url[..<schemeEnd.upperBound]) + String(rest[rest.index(after: at)...])
  }

  static func render(_ input: GenerationInput) -> MarkdownText {
    if let url = shownURL(input.repositoryURL) { return fromRepository(url, input) }
    return fromZip(input)
  }

  private static func fromRepository(_ url: String, _ input: GenerationInput) -> MarkdownText {
    let identity = PackageGenerator.packageIdentity(ofRepositoryURL: url)
    return .lines([
      .literal("Add the package to your `Package.swift`:"),
      .literal(""),
      manifestSnippet(
        dependency: .concatenating([
          .literal("  .package(url: "), .swiftCode(SwiftEmitter.stringLiteral(url)), .literal(", from: "),
          .swiftCode(SwiftEmitter.stringLiteral(input.version)), .literal("),"),
        ]), package: identity),
      .literal(""),
      .literal("In Xcode, choose File › Add Package Dependencies…, enter"),
      .concatenating([
        .codeSpan(url), .literal(" and pick \"Up to Next Major Version\" from "), .escaping(input.version),
        .literal("."),
      ]),
    ])
  }

  private static func fromZip(_ input: GenerationInput) -> MarkdownText {
    let folder = input.packageName
    let archive = PackageGenerator.archiveName(packageName: folder, version: input.version)
    return .lines([
      .concatenating([
        .literal("This package is delivered as "), .codeSpan(archive),
        .literal(". Unzip it into your project's"),
      ]),
      .concatenating([
        .literal("folder (it holds one folder, "), .codeSpan(folder),
        .literal("), then add it as a local package:"),
      ]),
      .literal(""),
      .concatenating([
        .literal("- In Xcode: File › Add Package Dependencies…, Add Local…, choose the "), .codeSpan(folder),
      ]),
      .literal("  folder, and add the `ContextSDK` library to your app's target."),
      .literal("- In a `Package.swift` beside that folder:"),
      .literal(""),
      manifestSnippet(
        dependency: .concatenating([
          .literal("  .package(path: "), .swiftCode(SwiftEmitter.stringLiteral(folder)), .literal("),"),
        ]), package: folder),
      .literal(""),
      .literal("A newer release comes as a new zip: replace the folder with the new one."),
    ])
  }

  /// The app's `Package.swift` lines that add the SDK: `dependency` (the `.package(…)` line)
  /// and the `ContextSDK` product of the package whose identity is `package`.
  private static func manifestSnippet(dependency: MarkdownText, package: String) -> MarkdownText {
    .lines([
      .literal("```swift"),
      .literal("dependencies: ["),
      dependency,
      .literal("],"),
      .literal("targets: ["),
      .literal("  .target("),
      .literal("    name: \"YourApp\","),
      .concatenating([
        .literal("    dependencies: [.product(name: \"ContextSDK\", package: "),
        .swiftCode(SwiftEmitter.stringLiteral(package)), .literal(")]"),
      ]),
      .literal("  ),"),
      .literal("]"),
      .literal("```"),
    ])
  }
}
