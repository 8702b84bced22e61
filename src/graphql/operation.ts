import type { DocumentNode, OperationDefinitionNode } from 'graphql';
import type { CompiledQuery } from 'graphql-jit';

/** An operation to run: parsed and validated (by the seam, by Apollo, or by `prepare` for fixed documents). */
export interface Operation {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  operationName?: string | null;
  /** Compiled ahead (fixed documents); otherwise the JIT cache decides. */
  compiled?: CompiledQuery | null;
}
