import { runListenerCreate } from "../../operations/listeners.js";
import { collect, examples } from "../parsers.js";
import { defineCommand } from "../spec.js";

export default defineCommand({
  configure: (command) =>
    command
      .requiredOption("--compute-id <id>", "the cluster the listener runs in (one listener per compute ID)")
      .option(
        "--k8s-namespace <namespace>",
        "a Kubernetes namespace deployments on it may use (repeatable)",
        collect,
      )
      .option("--dry-run", "show the request that would be sent; send nothing")
      .addHelpText(
        "after",
        `
Creates a listener of compute type k8s: POST /v2/listeners with {compute_type: "k8s",
compute_id, compute_config: {k8s_namespaces}}. What it will create is shown on stderr before it
is sent; --dry-run shows it and prints the request body. A compute ID is one listener's: a second
create of it is refused (409, exit 1), naming the listener that has it. Output: the listener
(-o json the service's object, -o id its ID).${examples(
          "cpctl listeners create --compute-id my-cluster --k8s-namespace agents --k8s-namespace tools",
          "cpctl listeners create --compute-id edge-cluster --k8s-namespace default -o id",
        )}`,
      ),
  run: (ctx, _args, options) =>
    runListenerCreate(ctx, {
      computeId: options.computeId,
      namespaces: options.k8sNamespace ?? [],
      dryRun: options.dryRun,
    }),
});
