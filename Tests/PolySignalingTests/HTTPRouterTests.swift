import Testing

@testable import PolySignaling

@Suite struct HTTPRouterTests {
    func router() -> HTTPRouter {
        var router = HTTPRouter()
        router.add("POST", "/api/v1/call/{id}/sdp") { request in
            .text("sdp \(request.parameters["id"] ?? "?")")
        }
        router.add("DELETE", "/api/v1/call/{id}") { request in .text("delete \(request.parameters["id"] ?? "?")") }
        return router
    }

    @Test func routesByMethodAndPattern() async {
        let router = router()
        let sdp = await router.handle(HTTPRequest(method: "POST", path: "/api/v1/call/c7/sdp"))
        #expect(sdp.status == 200 && sdp.body == Array("sdp c7".utf8))
        let delete = await router.handle(HTTPRequest(method: "DELETE", path: "/api/v1/call/c8/"))
        #expect(delete.body == Array("delete c8".utf8))
        #expect(await router.handle(HTTPRequest(method: "GET", path: "/api/v1/call/c7/sdp")).status == 405)
        #expect(await router.handle(HTTPRequest(method: "POST", path: "/api/v1/call/c7/sdp/x")).status == 404)
        #expect(await router.handle(HTTPRequest(method: "POST", path: "/")).status == 404)
    }

    @Test func headersAreCaseInsensitive() {
        let request = HTTPRequest(method: "GET", path: "/", headers: ["x-call-token": "t"])
        #expect(request.header("X-Call-Token") == "t")
    }
}
