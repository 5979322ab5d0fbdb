import { runListenerUpdate } from "../../operations/listeners.js";
import { collect, examples } from "../parsers.js";
import { defineCommand } from "../spec.js";

export default defineCommand({
  configure: (command) =>
    command
      .argument("<listener>", "the listener's ID, its compute ID, or its ID's first 8+ characters")
      .option(
        "--k8s-namespace <namespace>",
        "the namespaces given become the whole list (repeatable)",
        collect,
      )
      .option("--add-k8s-namespace <namespace>", "add this namespace, keep the others (repeatable)", collect)
      .option(
        "--remove-k8s-namespace <namespace>",
        "remove this namespace, keep the others (repeatable)",
        collect,
      )
      .option("--dry-run", "show the change and the request that would be sent; send nothing")
      .addHelpText(
        "after",
        `
PATCH /v2/listeners/{id} replaces the namespace list whole. --k8s-namespace makes the namespaces
given the whole list; --add-k8s-namespace and --remove-k8s-namespace change those named and keep
the rest (cpctl reads the listener, merges, and sends the whole list). The change is shown on
stderr before it is sent; --dry-run shows it and prints the request body.

A deployment's listener and namespace are fixed at its creation: removing a namespace that
deployments use is refused (exit 1, naming them), and nothing is sent. Nothing to change:
exit 0, and nothing is sent. Output: the listener as updated (-o json the service's object).${examples(
          "cpctl listeners update my-cluster --add-k8s-namespace staging",
          "cpctl listeners update my-cluster --remove-k8s-namespace tools --dry-run",
          "cpctl listeners update my-cluster --k8s-namespace agents --k8s-namespace staging",
        )}`,
      ),
  run: (ctx, [ref], options) =>
    runListenerUpdate(ctx, {
      ref,
      namespaces: options.k8sNamespace,
      add: options.addK8sNamespace,
      remove: options.removeK8sNamespace,
      dryRun: options.dryRun,
    }),
});
