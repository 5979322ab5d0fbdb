#!/usr/bin/env node
// Thin shim: everything lives in the bundle so that start-up loads one file.
import { main } from "../dist/cli.js";

main();
