import { createContext, useContext } from 'react';

export interface SignedInUser {
  userId: string;
  email?: string | null;
  plan: string;
  /** An operator (ADMIN_EMAILS), who handles marketplace reports. */
  isOperator?: boolean;
}

export const ViewerContext = createContext<SignedInUser | null>(null);

/** The signed-in user, or null while it is still loading. */
export function useViewer(): SignedInUser | null {
  return useContext(ViewerContext);
}
