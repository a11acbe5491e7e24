import Foundation
import Testing
import CorpusFormat
import CorpusObjectStore
import CorpusTestSupport

/// Every value that reaches an S3 request's head (the access key id in libcurl's `Authorization`
/// line, `x-amz-security-token`, each header this code writes) is checked for control characters
/// before the request is made (`RequestFieldCheck`, RFC 9110 §5.5). A credential holding CR LF
/// would otherwise end its line and start a header of its own. The endpoint is a loopback server
/// that records what reaches it: nothing may.
@Suite struct S3HeaderInjectionTests {
    static let injected = "x\r\nX-Injected: yes"

    /// The refusal, the operation's call, and what reached the server.
    func attempt(_ credentials: S3Credentials, _ call: (S3Client) async throws -> Void) async throws -> (error: ObjectStoreError?, requests: Int, connections: Int) {
        let dir = TempDirectory("s3-inject")
        let server = try MisbehavingServer(root: dir.path) { _ in .status(404) }
        defer { server.stop() }
        let client = try S3Client(endpoint: try S3Endpoint(parsing: server.baseURL, region: "us-east-1"), credentials: credentials,
                                  retry: ObjectStoreRetry(attempts: 1))
        var error: ObjectStoreError?
        do { try await call(client) } catch let e as ObjectStoreError { error = e }
        return (error, server.requestCount, server.connectionCount)
    }

    /// libcurl writes the access key id into `Authorization: AWS4-HMAC-SHA256 Credential=ID/…`.
    static let credentials: [(S3Credentials, String)] = [
        (S3Credentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "secret", sessionToken: injected),
         "the x-amz-security-token header's value holds a control character (byte 1), which no header may carry"),
        (S3Credentials(accessKeyID: "AKID" + injected, secretAccessKey: "secret"),
         "the access key id (in the Authorization header) holds a control character (byte 5), which no header may carry"),
    ]

    @Test(arguments: credentials)
    func aCredentialHoldingCRLFIsRefusedBeforeAnythingIsSent(_ credentials: S3Credentials, _ reason: String) async throws {
        for (operation, call) in [("HEAD", { (c: S3Client) async throws in _ = try await c.head(bucket: "b", key: "tree/catalog.json") }),
                                  ("GET", { (c: S3Client) async throws in _ = try await c.get(bucket: "b", key: "tree/catalog.json") })] {
            let r = try await attempt(credentials, call)
            #expect(r.error == .unsafeRequest(operation: operation, key: "tree/catalog.json", reason: reason))
            let message = r.error.map { "\($0)" } ?? ""
            #expect(!message.contains("Injected") && !message.contains("AKID"), "the message shows the credential: \(message)")
            #expect(r.requests == 0 && r.connections == 0)
        }
    }
}
