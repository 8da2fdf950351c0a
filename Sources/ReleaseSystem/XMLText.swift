/// Text for XML character data and attribute values (JUnit reports, SVG charts): the five
/// markup characters escaped, and characters XML 1.0 cannot carry (C0 controls other than tab,
/// LF and CR; U+FFFE and U+FFFF) replaced by U+FFFD, since a parser refuses a whole document
/// over one of them. Swift strings hold no lone surrogates.
public enum XMLText {
  public static func escaped(_ text: String) -> String {
    var escaped = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": escaped += "&amp;"
      case "<": escaped += "&lt;"
      case ">": escaped += "&gt;"
      case "\"": escaped += "&quot;"
      case "'": escaped += "&apos;"
      case "\t", "\n", "\r": escaped.unicodeScalars.append(scalar)
      default:
        let unwritable = scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF
        escaped.unicodeScalars.append(unwritable ? "\u{FFFD}" : scalar)
      }
    }
    return escaped
  }
}
