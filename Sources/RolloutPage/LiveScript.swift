/// `/live.js`: the one script, served by the page's server. It listens to the rollout's
/// server-sent events and writes the counts, the state and the plot into the page, which keeps
/// its scroll position; the page works without it (it reloads itself instead).
enum LiveScript {
    static let source = """
        (function () {
          var heading = document.getElementById("rollout");
          if (!heading || !window.EventSource) return;
          var source = new EventSource(heading.getAttribute("data-events"));
          source.onmessage = function (event) {
            var live = JSON.parse(event.data);
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
