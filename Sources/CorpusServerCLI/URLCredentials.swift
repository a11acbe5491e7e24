import CorpusCLIKit
import CorpusFormat

/// Credentials written into a URL on the command line (`http://AK:SECRET@host`,
/// `s3://AK:SECRET@bucket`) are refused before the value is used or echoed: a command line is
/// readable by every user of the machine (`ps`, `/proc`) and stays in shell history, and the
/// refusal of a malformed value would otherwise print it back.
enum URLCredentials {
    /// Where the keys of object storage belong instead.
    static let awsKeys = "the keys go in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or ~/.aws/credentials)"

    /// Refuses `text`, given as `option`, when it holds credentials; `instead` says what to give.
    /// The message names the option only, never the value.
    static func refuse(_ text: String, option: String, instead: String) throws {
        guard URLUserInfo.isPresent(in: text) else { return }
        throw ErrorReport(code: "credentials-in-url",
                          message: "\(option) holds credentials (USER:PASSWORD@ in its URL), which anyone on this machine can read from a command line",
                          hint: instead, kind: .usage)
    }
}
