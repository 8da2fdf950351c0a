import ReleaseGeneration
import XCTest

final class TemplateRendererTests: XCTestCase {
  func testSubstitutesEveryPlaceholder() throws {
    let rendered = try TemplateRenderer.render(
      "let name = {{name}}\nlet ids = {{ids}} // {{name}}\n", file: "T.swift.tmpl",
      values: [
        "name": SwiftEmitter.stringLiteral("Acme"),
        "ids": SwiftEmitter.arrayLiteral([SwiftEmitter.integerLiteral(1), SwiftEmitter.integerLiteral(2)]),
      ])
    XCTAssertEqual(rendered, "let name = \"Acme\"\nlet ids = [1, 2] // \"Acme\"\n")
  }

  func testValuesAreNotRenderedAgain() throws {
    let rendered = try TemplateRenderer.render(
      "{{a}} {{b}}", file: "T.md.tmpl", values: ["a": .escaping("{{b}}"), "b": .escaping("x")])
    XCTAssertEqual(rendered, "\\{\\{b\\}\\} x")
    let swift = try TemplateRenderer.render(
      "{{a}}", file: "T.swift.tmpl", values: ["a": SwiftEmitter.stringLiteral("{{a}}")])
    XCTAssertEqual(swift, "\"{{a}}\"")
  }

  func testUnknownPlaceholderNamesFileAndLine() {
    XCTAssertThrowsError(
      try TemplateRenderer.render(
        "one\ntwo\nthree {{missing}}\n", file: "README.md.tmpl", values: [String: MarkdownText]())
    ) { error in
      XCTAssertEqual(
        error as? GenerationError,
        .unknownPlaceholder(file: "README.md.tmpl", line: 3, name: "missing", known: []))
      XCTAssertEqual(
        "\(error)", "README.md.tmpl:3: unknown placeholder {{missing}}: expected one of (none)")
    }
  }

  func testLineNumbersCountCarriageReturnLineFeeds() {
    XCTAssertThrowsError(
      try TemplateRenderer.render("a\r\nb\r\n{{x}}", file: "T.md.tmpl", values: [String: MarkdownText]())
    ) { error in
      XCTAssertEqual(
        error as? GenerationError, .unknownPlaceholder(file: "T.md.tmpl", line: 3, name: "x", known: []))
    }
  }

  func testUnusedValueIsAnError() {
    XCTAssertThrowsError(
      try TemplateRenderer.render(
        "{{used}}", file: "P.swift.tmpl",
        values: ["used": SwiftEmitter.integerLiteral(1), "extra": SwiftEmitter.integerLiteral(2)])
    ) { error in
      XCTAssertEqual(error as? GenerationError, .unusedValue(file: "P.swift.tmpl", name: "extra"))
      XCTAssertEqual(
        "\(error)",
        "P.swift.tmpl: value \"extra\" is never used: expected a {{extra}} placeholder in the template")
    }
  }

  func testMalformedPlaceholdersAreErrors() {
    for template in ["{{ name }}", "{{name", "x {{na-me}}", "{{}}", "{{name}\n}"] {
      XCTAssertThrowsError(
        try TemplateRenderer.render(
          template, file: "T.swift.tmpl", values: ["name": SwiftEmitter.integerLiteral(1)]),
        template
      ) { error in
        guard case .malformedPlaceholder(let file, 1, _)? = error as? GenerationError, file == "T.swift.tmpl"
        else {
          return XCTFail("\(template): expected a malformed placeholder on line 1, got \(error)")
        }
      }
    }
  }

  func testTextWithoutPlaceholdersIsUnchanged() throws {
    let text = "no placeholders { } }} here\n"
    XCTAssertEqual(
      try TemplateRenderer.render(text, file: "T.md.tmpl", values: [String: MarkdownText]()), text)
  }
}

final class MarkdownTextTests: XCTestCase {
  func testEscapingNeutralisesMarkdownAndHTML() {
    XCTAssertEqual(
      MarkdownText.escaping("[click](x) <img> *bold* _it_ `code` | # & ~").markdown,
      "\\[click\\]\\(x\\) \\<img\\> \\*bold\\* \\_it\\_ \\`code\\` \\| \\# \\& \\~")
    // GitHub links a bare URL even with its punctuation escaped: such text is a code span.
    XCTAssertEqual(
      MarkdownText.escaping("[click](https://x) `code`").markdown, "`` [click](https://x) `code` ``")
    XCTAssertEqual(MarkdownText.escaping("two\nlines\r\n- item").markdown, "two lines  - item")
    XCTAssertEqual(MarkdownText.escaping("Café 2.4.0").markdown, "Café 2.4.0")
  }

  func testCodeSpansOutlastTheBackticksInside() {
    XCTAssertEqual(MarkdownText.codeSpan("flow_name").markdown, "`flow_name`")
    XCTAssertEqual(MarkdownText.codeSpan("a`b").markdown, "``a`b``")
    XCTAssertEqual(MarkdownText.codeSpan("`x``").markdown, "``` `x`` ```")
    XCTAssertEqual(MarkdownText.codeSpan("a\nb").markdown, "`a b`")
  }
}
