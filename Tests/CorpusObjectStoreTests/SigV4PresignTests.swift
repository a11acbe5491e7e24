import Foundation
import Testing
import CorpusFormat
import CorpusObjectStore
import CorpusTestSupport

@Suite struct SigV4PresignTests {
    /// The example of "Authenticating Requests: Using Query Parameters (AWS Signature Version 4)".
    @Test func theAWSExampleGivesItsSignature() throws {
        let credentials = S3Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
        let endpoint = try S3Endpoint(parsing: "https://examplebucket.s3.amazonaws.com", region: "us-east-1")
        let url = SigV4Presigner(credentials: credentials, endpoint: endpoint)
            .presign(method: "GET", host: "examplebucket.s3.amazonaws.com", path: "/test.txt", expires: 86400,
                     now: Timestamp.parse("2013-05-24T00:00:00Z")!)
        #expect(url == "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256"
            + "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z"
            + "&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404")
    }

    @Test func pathSegmentsAreEncodedAsSigV4CanonicalisesThem() throws {
        let endpoint = try S3Endpoint(parsing: "http://127.0.0.1:8333", region: "us-east-1")
        #expect(endpoint.objectPath(bucket: "b", key: "p/a b+c~d.zip") == "/b/p/a%20b%2Bc~d.zip")
        #expect(endpoint.hostHeader == "127.0.0.1:8333")
        #expect(try S3Endpoint(parsing: "https://s3.example:443", region: "eu-west-1").hostHeader == "s3.example")
    }

    /// SeaweedFS itself decides: the URL works, and a flipped signature, an expired URL, another
    /// key's signature and no signature are all refused (403).
    @Test func seaweedFSAcceptsThePresignedURLAndRefusesEveryForgery() async throws {
        let store = try SeaweedCluster(.single, anonymousRead: ["pub/tree"])
        try store.createBucket("pub")
        let file = try store.dir.write("secret.bin", "entitled bytes")
        let endpoint = try S3Endpoint(parsing: store.endpoint, region: store.region)
        let credentials = S3Credentials(accessKeyID: SeaweedCluster.accessKey, secretAccessKey: store.secretKey)
        let client = try S3Client(endpoint: endpoint, credentials: credentials)
        try await client.put(bucket: "pub", key: "private/bundles/x.zip", file: file, sha256: SHA256.hex(Data("entitled bytes".utf8)),
                       contentType: "application/zip", cacheControl: "private")
        let presigner = SigV4Presigner(credentials: credentials, endpoint: endpoint)

        func get(_ url: String) throws -> (status: String, body: String) {
            let r = try ProcessRunner.run("curl", ["-s", "-w", "\n%{http_code}", url])
            let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            return (String(lines.last ?? ""), lines.dropLast().joined(separator: "\n"))
        }
        let good = presigner.presignedGET(bucket: "pub", key: "private/bundles/x.zip", expires: 300)
        #expect(try get(good) == ("200", "entitled bytes"))

        let flipped = String(good.dropLast()) + (good.hasSuffix("0") ? "1" : "0")
        #expect(try get(flipped).status == "403")
        let expired = presigner.presignedGET(bucket: "pub", key: "private/bundles/x.zip", expires: 60, now: Date().addingTimeInterval(-3600))
        #expect(try get(expired).status == "403")
        let stranger = SigV4Presigner(credentials: S3Credentials(accessKeyID: SeaweedCluster.accessKey, secretAccessKey: "not-the-secret"),
                                      endpoint: endpoint)
        #expect(try get(stranger.presignedGET(bucket: "pub", key: "private/bundles/x.zip", expires: 300)).status == "403")
        #expect(try get(endpoint.objectURL(bucket: "pub", key: "private/bundles/x.zip")).status == "403")
        // The URL names this one object: the same signature on another key is refused.
        let otherKey = good.replacingOccurrences(of: "/private/bundles/x.zip", with: "/private/bundles/y.zip")
        #expect(try get(otherKey).status == "403")
    }
}
