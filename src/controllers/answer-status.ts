import { createParamDecorator } from 'routing-controllers';
import { nodeMessagesOf } from '../http/node-message';

/** Sets the status of the answer the action is about to return. */
export type SetStatus = (status: number) => void;

/**
 * Injects a setter of the answer's status, for an action whose success status depends on what happened (201 when
 * it created, 200 when it existed). Koa resets an unset status to 200 when the body is assigned, so there the
 * context's own setter marks it as chosen; Express sends whatever Node's response holds.
 *
 * @example
 * @Post('/admin/roles') async create(@Body() body: NameBody, @AnswerStatus() status: SetStatus) { ... status(201) }
 */
export function AnswerStatus(): (object: object, method: string, index: number) => void {
  return createParamDecorator({
    required: false,
    value: (action): SetStatus => {
      const context = action.context as { status?: number } | undefined;
      if (context) return (status) => (context.status = status);
      const { res } = nodeMessagesOf(action);
      return (status) => (res.statusCode = status);
    },
  });
}
