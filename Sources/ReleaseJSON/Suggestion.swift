/// "Did you mean" hints for mistyped names.
package enum Suggestion {
  /// The candidate closest to `word` by edit distance, when it is close enough to be a typo.
  package static func closest(to word: String, among candidates: [String]) -> String? {
    let scored = candidates.map { ($0, distance(word.lowercased(), $0.lowercased())) }
    guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
    return best.1 <= max(2, word.count / 3) ? best.0 : nil
  }

  /// Levenshtein distance: insertions, deletions and substitutions each cost 1.
  package static func distance(_ a: String, _ b: String) -> Int {
    let b = Array(b)
    var previousRow = Array(0...b.count)
    for (i, characterOfA) in a.enumerated() {
      var row = [i + 1]
      for (j, characterOfB) in b.enumerated() {
        let substitution = previousRow[j] + (characterOfA == characterOfB ? 0 : 1)
        row.append(min(previousRow[j + 1] + 1, row[j] + 1, substitution))
      }
      previousRow = row
    }
    return previousRow[b.count]
  }
}
