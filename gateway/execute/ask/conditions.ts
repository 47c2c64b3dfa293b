/** The plan decides which conditions hold (plan/conditions.ts); the walk and the shaper read it from here. */
export { conditionsHold } from '../../plan/conditions.js';
