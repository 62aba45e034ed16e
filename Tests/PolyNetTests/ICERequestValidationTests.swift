import PolyCore
import Testing

@testable import PolyNet

@Suite struct ICERequestValidationTests {
    typealias F = ICEFixtures

    /// A lite agent answering one crafted request; returns the decoded answer.
    func answer(to attributes: [STUNAttribute], key: String?) throws -> STUNMessage {
        var agent = ICEAgent(configuration: F.configuration(mode: .lite, seed: 4))
        agent.handle(.gather(localAddresses: [F.bridgeAddress]), at: .zero)
        while agent.pollOutput(at: .zero) != nil {}
        var random = SeededRandom(seed: 8)
        let request = STUNMessage(
            messageClass: .request, transactionID: .random(using: &random), attributes: attributes)
        let bytes = request.encoded(integrityKey: key.map { Array($0.utf8) })
        agent.handle(.datagram(bytes: bytes, from: F.clientAddress, to: F.bridgeAddress), at: .zero)
        let output = agent.pollOutput(at: .zero)
        guard case .transmit(let answer, let from, let to) = try #require(output) else {
            throw STUNError.truncated
        }
        #expect(from == F.bridgeAddress && to == F.clientAddress)
        #expect(agent.selectedPair == nil)
        return try STUNMessage(decoding: answer)
    }

    var localUfrag: String { ICEAgent(configuration: F.configuration(mode: .lite, seed: 4)).localCredentials.ufrag }
    var localPassword: String {
        ICEAgent(configuration: F.configuration(mode: .lite, seed: 4)).localCredentials.password
    }

    @Test func missingIntegrityIs400() throws {
        let reply = try answer(to: [.username("\(localUfrag):x"), .useCandidate], key: nil)
        #expect(reply.messageClass == .errorResponse && reply.errorCode?.code == 400)
    }

    @Test func wrongUfragIs401() throws {
        let reply = try answer(to: [.username("other:x"), .useCandidate], key: localPassword)
        #expect(reply.errorCode?.code == 401)
    }

    @Test func unknownRequiredAttributeIs420() throws {
        let reply = try answer(
            to: [.username("\(localUfrag):x"), .other(type: 0x7F00, value: [1]), .useCandidate], key: localPassword)
        #expect(reply.errorCode?.code == 420)
        #expect(reply.hasIntegrity && reply.unknownRequiredAttributes.isEmpty)
        #expect(reply.attributes.contains(.other(type: STUNAttribute.Code.unknownAttributes, value: [0x7F, 0x00])))
    }
}
