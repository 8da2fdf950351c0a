import Foundation

/// The README's section "Checking the signature", added after the template's README when the
/// release is signed (`GenerationInput.signatureCheck`). It is written by the generator rather
/// than by the template, so that the template, and with it the digest of every package made
/// without keys, stays the same.
enum SignatureSection {
  static let template = """

    ## Checking the signature

    Each release zip comes with its signature, the file of the same name ending in `.sig`: an
    OpenSSH file signature, which `ssh-keygen` checks (it is on every Mac and Linux machine). The
    zip is signed by one of these keys, shown by their fingerprints as `ssh-keygen -l` prints them:

    {{fingerprints}}

    {{allowedSigners}}
    Check that the line's key is one of the above: `ssh-keygen -l -f allowed_signers` prints its
    fingerprint. The signer identity is {{identity}}. Before you unpack a zip, check its
    signature; for this release's zip:

    ```sh
    ssh-keygen -Y verify -f allowed_signers -I {{identityWord}} -n {{namespaceWord}} -s {{signatureWord}} < {{archiveWord}}
    ```

    It prints {{goodSignature}}
    and the key's fingerprint. Any other output, or an exit status other than 0, means the zip is
    not one we signed: do not use it.

    """

  /// The section for a release whose zip is `archiveName`.
  static func render(_ check: SignatureCheck, archiveName: String) throws -> String {
    let allowedSigners: MarkdownText
    if let url = check.allowedSignersURL {
      allowedSigners = .lines([
        .concatenating([
          .literal("We publish the `allowed_signers` line of these keys at "), .escaping(url), .literal("."),
        ]),
        .literal("Save it as the file `allowed_signers`."),
      ])
    } else {
      allowedSigners = .literal(
        "Ask us for the `allowed_signers` line of these keys and save it as the file\n`allowed_signers`.")
    }
    return try TemplateRenderer.render(
      template, file: "README.md (Checking the signature)",
      values: [
        "fingerprints": .lines(check.fingerprints.map { .concatenating([.literal("- "), .codeSpan($0)]) }),
        "allowedSigners": allowedSigners,
        "identity": .codeSpan(check.identity),
        "identityWord": .codeBlockText(shellWord(check.identity)),
        "namespaceWord": .codeBlockText(shellWord(check.namespace)),
        "signatureWord": .codeBlockText(shellWord(archiveName + ".sig")),
        "archiveWord": .codeBlockText(shellWord(archiveName)),
        "goodSignature": .codeSpan("Good \"\(check.namespace)\" signature for \(check.identity)"),
      ])
  }

  /// `text` as one word of a POSIX shell command: as it is when it holds only characters no
  /// shell treats specially, else in single quotes.
  static func shellWord(_ text: String) -> String {
    let plain =
      !text.isEmpty
      && text.unicodeScalars.allSatisfy { scalar in
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
          || "@%+=:,./_-".unicodeScalars.contains(scalar)
      }
    return plain ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }
}
