import type { DocumentNode, GraphQLSchema } from 'graphql';
import type { Operation } from '../operation.js';
import { fragmentsOf, planOperation, type RootPlan } from './plan.js';

/**
 * Plans by document and operation name, made once: Apollo hands the same parsed document for the
 * same query text, and REST routes keep theirs. Null remembers an operation outside the plan.
 */
export class PlanCache {
  private readonly byDocument = new WeakMap<DocumentNode, Map<string, RootPlan | null>>();

  constructor(private readonly schema: GraphQLSchema) {}

  get(op: Operation): RootPlan | null {
    let plans = this.byDocument.get(op.document);
    if (!plans) {
      plans = new Map();
      this.byDocument.set(op.document, plans);
    }
    const name = op.operation.name?.value ?? '';
    let plan = plans.get(name);
    if (plan === undefined) {
      plan = planOperation(this.schema, op.operation, fragmentsOf(op.document.definitions));
      plans.set(name, plan);
    }
    return plan;
  }
}
