import { createContext, useContext } from 'react';

export interface SignedInUser {
  userId: string;
  email?: string | null;
  plan: string;
}

export const ViewerContext = createContext<SignedInUser | null>(null);

/** The signed-in user, or null while it is still loading. */
export function useViewer(): SignedInUser | null {
  return useContext(ViewerContext);
}
