import Testing
@testable import CorpusFormat

/// A location or endpoint refused for its shape is named in the error, but never with the
/// credentials someone wrote into it (`http://AK:SECRET@host`).
@Suite struct S3ConfigurationErrorTests {
    @Test(arguments: ["http://AKIDLEAK:SECRETLEAK@127.0.0.1:9", "AKIDLEAK:SECRETLEAK@127.0.0.1:9", "http://SECRETLEAK@host/x@y"])
    func anEndpointWithCredentialsIsRefusedWithoutThem(text: String) {
        #expect(throws: S3ConfigurationError.self) { try S3Endpoint(parsing: text, region: "us-east-1") }
        do {
            _ = try S3Endpoint(parsing: text, region: "us-east-1")
        } catch {
            #expect(!error.description.contains("SECRETLEAK") && !error.description.contains("AKIDLEAK"), "\(error)")
            #expect(error.description.contains("…@"), "\(error)")
        }
    }

    @Test func aLocationWithCredentialsIsRefusedWithoutThem() {
        do {
            _ = try S3Location(parsing: "s3://AKIDLEAK:SECRETLEAK@bucket/tree")
            Issue.record("accepted")
        } catch {
            #expect(error.description == "s3://…@bucket/tree is not an s3://BUCKET[/PREFIX] location: the bucket name must be 3 to 63 of a-z 0-9 . - with a letter or digit at each end")
        }
    }

    @Test func aValueWithoutCredentialsIsNamedAsItIs() {
        #expect(URLUserInfo.redacted("http://127.0.0.1:9/a@b") == "http://127.0.0.1:9/a@b")
        #expect(!URLUserInfo.isPresent(in: "http://127.0.0.1:9/a@b?c@d#e@f"))
        #expect(URLUserInfo.redacted("AK:SECRET@bucket/x") == "…@bucket/x")
        #expect(URLUserInfo.redacted("https://u:p@a@host:1/p") == "https://…@host:1/p")
        #expect(S3ConfigurationError.invalidEndpoint("ftp://h", reason: "r").description == "ftp://h is not an S3 endpoint: r")
    }
}
