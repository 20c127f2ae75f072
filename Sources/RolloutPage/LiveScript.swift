/// `/live.js`: the one script, served by the page's server. It listens to the rollout's
/// server-sent events and writes the counts, the state and the plot into the page; when they
/// changed, it fetches the page again (same URL, same filters) and swaps in its gateways,
/// failures and devices. The page keeps its scroll position; it works without the script (it
/// reloads itself instead).
enum LiveScript {
    static let source = """
        (function () {
          var heading = document.getElementById("rollout");
          if (!heading || !window.EventSource) return;
          var source = new EventSource(heading.getAttribute("data-events"));
          var shown = null;
          function refreshLists() {
            fetch(window.location.href, { credentials: "same-origin" })
              .then(function (response) { return response.text(); })
              .then(function (text) {
                var fresh = new DOMParser().parseFromString(text, "text/html");
                ["gateways", "failures", "device-list"].forEach(function (id) {
                  var now = document.getElementById(id), next = fresh.getElementById(id);
                  if (now && next) now.replaceChildren.apply(now, Array.from(next.childNodes));
                });
              });
          }
          source.onmessage = function (event) {
            var live = JSON.parse(event.data);
            var seen = live.state + " " + JSON.stringify(live.counts);
            if (shown !== null && shown !== seen) refreshLists();
            shown = seen;
            document.getElementById("state").textContent = live.state;
            document.getElementById("done").textContent = live.done;
            document.getElementById("total").textContent = live.total;
            var progress = document.getElementById("progress");
            progress.max = Math.max(live.total, 1);
            progress.value = live.done;
            document.querySelectorAll("[data-count]").forEach(function (node) {
              node.textContent = live.counts[node.getAttribute("data-count")] || 0;
            });
            // drawn by the server from numbers and times only
            document.getElementById("plot").innerHTML = live.plot;
            var updates = Number(document.body.getAttribute("data-updates") || "0") + 1;
            document.body.setAttribute("data-updates", String(updates));
          };
        })();
        """
}
