/**
 * A dispatcher that says when a request has been written to its socket (undici's `onRequestSent`,
 * after the headers and the whole body): what calls-going-out.ts waits for. The handler is wrapped,
 * not replaced: every other step reaches it unchanged.
 */
import type { Dispatcher } from 'undici';

export function withRequestSent(dispatcher: Dispatcher, onSent: () => void): Dispatcher {
  return dispatcher.compose(
    (dispatch) => (options, handler) =>
      dispatch(
        options,
        new Proxy(handler, {
          get(target, property) {
            if (property === 'onRequestSent') {
              return (...args: unknown[]) => {
                onSent();
                return (target as { onRequestSent?: (...a: unknown[]) => unknown }).onRequestSent?.(...args);
              };
            }
            const value = Reflect.get(target, property);
            return typeof value === 'function' ? value.bind(target) : value;
          },
        }),
      ),
  );
}
