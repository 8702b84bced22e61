import {
  type ExecutionResult,
  execute,
  GraphQLError,
  type GraphQLSchema,
  getOperationAST,
  getVariableValues,
  type OperationTypeNode,
  parse,
  validate,
} from 'graphql';
import { type Context, routeToReadPool } from '../context.js';
import { AppError } from '../errors.js';
import type { AdmissionTier } from '../http/admission.js';
import { appErrorOf } from '../http/error-response.js';
import { jsonBytes, WrittenJson } from '../http/json-bytes.js';
import type { Engine, Metrics } from '../observability/metrics.js';
import type { BoundedNames } from '../observability/names.js';
import { operationSpan } from '../observability/tracing.js';
import { rejection } from './errors.js';
import { checkLiteralDepth, checkVariables } from './input-limits.js';
import { compileOrNull, JitCache, type JitOptions } from './jit.js';
import { enforceMeasured, type GraphQLLimits } from './limits.js';
import { measureRemembered } from './measure-memo.js';
import type { Operation } from './operation.js';
import { PlanCache } from './plan/cache.js';
import { NotPlanned, runPlan } from './plan/run.js';

type CoercedVariables = ReturnType<typeof getVariableValues>;

/** What a transport says about a request beyond the operation itself. */
export interface RunOptions {
  /** Cost (nodes the operation could return) above which the request waits for a heavy slot. */
  heavyCost: number;
  /** Cost above which (up to heavyCost) it waits for a large slot; no large tier when absent. */
  largeCost?: number;
  /**
   * The transport has bounded and validated its inputs itself (REST: parameters and bodies, with
   * details named in REST's terms); otherwise variables are checked here, before graphql-js
   * coerces them.
   */
  inputsChecked?: boolean;
  /**
   * The transport serializes the answer with `jsonBytes` (/graphql): a planned answer then comes
   * back already written (`WrittenJson`), for the reason at `admittedContext`.
   */
  writesJson?: boolean;
}

/** Which engines may answer (GRAPHQL_PLANS, GRAPHQL_JIT, GRAPHQL_JS): each is on unless false. */
export type EngineSettings = { [E in Engine]?: boolean };

export interface ExecutorOptions extends JitOptions {
  /** The plan; the same as `engines.plan`, which wins when both are given. */
  plans?: boolean;
  engines?: EngineSettings;
  /** Where each operation is counted by the engine that answered it. */
  metrics?: Pick<Metrics, 'observeOperation'>;
}

/**
 * The plan answers reads only: with graphql-jit and graphql-js both off nothing could write, so
 * such a configuration is refused at startup rather than by every mutation.
 */
const NO_WRITE_ENGINE =
  'graphql-jit and graphql-js are both off (GRAPHQL_JIT=0, GRAPHQL_JS=0): no engine is left to run mutations (the plan answers reads only); turn one of them back on';

/**
 * The context an admitted operation runs with: the same request, but new loaders and memo, made
 * after its wait for a slot.
 *
 * Why: a request that waited long enough has its context, loaders and the frames of the functions
 * that wait in V8's old generation by the time it runs. Everything it then reads (pages, rows, the
 * answer) is young, and an old object that points at it keeps it alive through every young
 * collection, even once the request is over and that object is dead, until the next full
 * collection: it is copied, then promoted. With a new context, and the answer handed back as
 * written JSON (RunOptions.writesJson), nothing old points at what the operation read, and it dies
 * young. The caller must pass this straight on, not keep it in a variable of its own, and the
 * request drops its context once answered (http/auth.ts;
 * docs/decisions.md#an-admitted-operation-runs-with-a-new-context).
 */
function admittedContext(ctx: Context): Context {
  return { ...ctx, loaders: ctx.newLoaders(ctx.db), memo: undefined };
}

/**
 * The one way every operation runs, for REST and /graphql alike: the abuse limits, admission of
 * heavy operations, the read pool for queries, then execution by one engine: the plan (the hot
 * read shape), graphql-jit (compiled) or graphql-js (cold). The engine that answered is recorded
 * here, for every caller: `ctx.obs.engine` (the access log) and the operations metric. Refusals come
 * back as GraphQL errors carrying the AppError (errors.ts), so each transport maps errors in one
 * place.
 */
export class Executor {
  readonly jit: JitCache;
  /** Plans of the hot read shape (plan/plan.ts); absent when turned off. */
  private readonly plans?: PlanCache;
  readonly engines: Readonly<Record<Engine, boolean>>;
  private readonly metrics?: Pick<Metrics, 'observeOperation'>;

  constructor(
    readonly schema: GraphQLSchema,
    private readonly limits: GraphQLLimits,
    opts: ExecutorOptions = {},
    /** Operation names as metric labels (a bounded set); the name as given when absent. */
    private readonly names?: BoundedNames,
  ) {
    const { plans, engines, metrics, ...jit } = opts;
    this.engines = {
      plan: engines?.plan ?? plans ?? true,
      jit: engines?.jit ?? true,
      js: engines?.js ?? true,
    };
    if (!this.engines.jit && !this.engines.js) throw new Error(NO_WRITE_ENGINE);
    this.metrics = metrics;
    // Without graphql-js nothing could run an operation until it is hot: it is compiled at once.
    this.jit = new JitCache(schema, this.engines.js ? jit : { ...jit, hotAfter: 1 });
    if (this.engines.plan) this.plans = new PlanCache(schema);
  }

  /**
   * A fixed document (a REST route's), parsed, validated and compiled now: a broken one fails the
   * boot, not a request.
   */
  prepare(source: string, what: string): Operation {
    const document = parse(source);
    const errors = validate(this.schema, document);
    const operation = getOperationAST(document);
    if (errors.length || !operation)
      throw new Error(`${what}: ${errors.map((e) => e.message).join('; ') || 'not one operation'}`);
    if (!this.engines.jit) return { document, operation, compiled: null };
    const compiled = compileOrNull(this.schema, document);
    if (!compiled) throw new Error(`${what}: graphql-jit cannot compile it`);
    return { document, operation, compiled };
  }

  /**
   * Runs one operation in its trace span (name and type, never variables); a /graphql request's
   * operation name becomes its metric label here (a REST route's was set from its route).
   */
  execute(
    ctx: Context,
    op: Operation,
    variables: Record<string, unknown>,
    opts: RunOptions,
  ): Promise<ExecutionResult> {
    const name = op.operationName ?? op.operation.name?.value;
    const obs = ctx.obs;
    if (obs?.transport === 'graphql')
      obs.operation = this.names ? this.names.label(name, ctx.viewer.orgIds) : (name ?? '(anonymous)');
    return operationSpan(op.operation.operation, obs?.operation ?? name ?? '(anonymous)', obs?.trace, () =>
      this.run(ctx, op, variables, opts),
    );
  }

  private async run(
    ctx: Context,
    op: Operation,
    variables: Record<string, unknown>,
    opts: RunOptions,
  ): Promise<ExecutionResult> {
    let vars: CoercedVariables;
    let tier: AdmissionTier | undefined;
    try {
      // Input values are bounded before graphql-js coerces (and recurses into) them, and the cost
      // is measured with the variables as graphql-js will coerce them, defaults included. Variables
      // that do not coerce are measured as absent (the structural limits still apply) and refused
      // below, as graphql-js refuses them, unless a limit refuses the operation first.
      if (!opts.inputsChecked) {
        checkLiteralDepth(op.document, this.limits.maxInputDepth);
        checkVariables(variables, this.limits.maxInputDepth);
      }
      vars = getVariableValues(this.schema, op.operation.variableDefinitions ?? [], variables, {
        maxErrors: 50,
      });
      const measure = measureRemembered(this.schema, op.document, op.operation, vars.coerced ?? {});
      const { cost } = enforceMeasured(this.limits, measure);
      if (cost > opts.heavyCost) tier = 'heavy';
      else if (opts.largeCost !== undefined && cost > opts.largeCost) tier = 'large';
      if (tier) await ctx.admit?.(tier);
    } catch (err) {
      if (err instanceof AppError || err instanceof GraphQLError) return { errors: [rejection(err)] };
      throw err; // the client left while waiting for a slot
    }
    // Passed straight on, never held in this function: see admittedContext.
    return this.admitted(tier ? admittedContext(ctx) : ctx, op, variables, vars, opts);
  }

  /** The operation, once admitted. */
  private async admitted(
    ctx: Context,
    op: Operation,
    variables: Record<string, unknown>,
    vars: CoercedVariables,
    opts: RunOptions,
  ): Promise<ExecutionResult> {
    // Only a query reads from the replica: every read of a request that writes stays on the primary.
    if (op.operation.operation === 'query') {
      routeToReadPool(ctx);
      const planned = vars.coerced && (await this.planned(ctx, op, vars.coerced, opts));
      if (planned) return planned;
    }
    const compiled = this.engines.jit ? (op.compiled ?? this.jit.hot(op.document, op.operationName)) : null;
    if (!compiled) {
      if (!this.engines.js) return { errors: [rejection(notCompilable())] };
      this.answeredBy(ctx, 'js', op.operation.operation);
      return execute({
        schema: this.schema,
        document: op.document,
        contextValue: ctx,
        variableValues: variables,
        operationName: op.operationName,
      });
    }
    this.answeredBy(ctx, 'jit', op.operation.operation);
    // Variables are checked by graphql-js, so a mistake in them reads exactly as it does cold.
    if (vars.errors) return { errors: vars.errors };
    const result = await compiled.query(undefined, ctx, variables);
    return result.errors ? { ...result, errors: result.errors.map(asGraphQLError) } : result;
  }

  /** Records the engine that answers: the access log's `engine`, and the operations metric. */
  private answeredBy(ctx: Context, engine: Engine, type: OperationTypeNode): void {
    if (ctx.obs) ctx.obs.engine = engine;
    this.metrics?.observeOperation(engine, type);
  }

  /**
   * A planned operation's answer, or undefined for the executor to give: when the operation is not
   * planned, and when the plan meets anything but the plain answer (a missing organization or
   * portfolio, a refused argument, an unexpected value). Reads only, so redoing them is safe. A
   * database that is down or too slow is the exception: it answers 503 now, not after a second wait.
   * A fault of the plan itself (an error no service raises) is answered by the executor too, but
   * not silently: the access log's `planError` and a counter show it (observability/http.ts).
   */
  private async planned(
    ctx: Context,
    op: Operation,
    variables: { [name: string]: unknown },
    opts: RunOptions,
  ): Promise<ExecutionResult | undefined> {
    const plan = this.plans?.get(op);
    if (!plan) return undefined;
    try {
      const data = await runPlan(ctx, plan, variables);
      if (!data) return undefined;
      this.answeredBy(ctx, 'plan', op.operation.operation);
      if (ctx.obs) ctx.obs.planned = true;
      if (!opts.writesJson) return { data };
      // jsonBytes writes the answer around it as it is (http/json-bytes.ts).
      return { data: new WrittenJson(jsonBytes(data)) as unknown as ExecutionResult['data'] };
    } catch (err) {
      if (err instanceof NotPlanned) return undefined;
      const app = appErrorOf(err);
      if (app.code === 'TIMEOUT' || app.code === 'UNAVAILABLE') {
        this.answeredBy(ctx, 'plan', op.operation.operation);
        return { errors: [rejection(app)] };
      }
      // graphql-js's own refusals of an argument are the request's, and the executor reports them.
      const fault = err instanceof GraphQLError ? err.originalError : err;
      if (fault && app.code === 'INTERNAL' && ctx.obs) ctx.obs.planError = planError(fault);
      return undefined;
    }
  }
}

/** With graphql-js off, an operation graphql-jit cannot compile has nothing to run it. */
const notCompilable = () =>
  new AppError(
    'GRAPHQL_VALIDATION_FAILED',
    'This server runs compiled operations only (GRAPHQL_JS=0), and this operation cannot be compiled. ' +
      'A variable of a recursive input type (RecordFilter) is never compiled: write the filter into the document instead.',
  );

/** A plan's fault for the access log: the error's class and message, bounded. */
function planError(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/**
 * graphql-jit's errors leave `extensions` undefined, which Apollo's error formatting cannot read;
 * a graphql-js GraphQLError with the same message, path, locations and original error can.
 */
function asGraphQLError(e: GraphQLError): GraphQLError {
  const g = new GraphQLError(e.message, {
    path: e.path,
    originalError: e.originalError ?? undefined,
    extensions: e.extensions,
  });
  if (e.locations) Object.defineProperty(g, 'locations', { value: e.locations, enumerable: true });
  return g;
}
