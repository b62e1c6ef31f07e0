/**
 * CDK app entry. Pick the stage with `-c chronos:stage=<name>` (default dev); see lib/config.ts
 * for every setting and cdk.json for the stage blocks.
 */
import { createChronosApp } from '../lib/app.ts';

createChronosApp();
