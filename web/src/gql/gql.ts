/* eslint-disable */
import * as types from './graphql';



/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  query Viewer {\n    me {\n      userId\n      email\n      plan\n      isOperator\n    }\n  }\n": typeof types.ViewerDocument,
    "\n  query ApiKeys {\n    apiKeys(limit: 100) {\n      data {\n        keyId\n        name\n        scope\n        deploymentIds\n        prefix\n        createdAt\n        lastUsedAt\n        expiresAt\n      }\n    }\n    deployments(limit: 100) {\n      data {\n        deploymentId\n        name\n      }\n    }\n  }\n": typeof types.ApiKeysDocument,
    "\n  mutation CreateApiKey($name: String!, $scope: String, $expiresAt: String) {\n    createApiKey(name: $name, scope: $scope, expiresAt: $expiresAt) {\n      keyId\n      name\n      secret\n    }\n  }\n": typeof types.CreateApiKeyDocument,
    "\n  mutation RevokeApiKey($keyId: String!) {\n    revokeApiKey(keyId: $keyId) {\n      keyId\n      deleted\n    }\n  }\n": typeof types.RevokeApiKeyDocument,
    "\n  query TeamAuditLog(\n    $teamId: String!\n    $cursor: String\n    $action: String\n    $actorUserId: String\n    $targetType: String\n    $since: String\n    $until: String\n  ) {\n    teamAuditLog(\n      teamId: $teamId\n      limit: 50\n      cursor: $cursor\n      action: $action\n      actorUserId: $actorUserId\n      targetType: $targetType\n      since: $since\n      until: $until\n    ) {\n      data {\n        entryId\n        action\n        actorUserId\n        targetType\n        targetId\n        details\n        at\n      }\n      pagination {\n        hasMore\n        nextCursor\n      }\n    }\n  }\n": typeof types.TeamAuditLogDocument,
    "\n  query MyAuditLog($cursor: String, $action: String, $targetType: String, $since: String, $until: String) {\n    myAuditLog(limit: 50, cursor: $cursor, action: $action, targetType: $targetType, since: $since, until: $until) {\n      data {\n        entryId\n        action\n        actorUserId\n        targetType\n        targetId\n        details\n        at\n      }\n      pagination {\n        hasMore\n        nextCursor\n      }\n    }\n  }\n": typeof types.MyAuditLogDocument,
    "\n  query TeamAuditLogCsv($teamId: String!, $action: String, $actorUserId: String, $targetType: String, $since: String, $until: String) {\n    teamAuditLogCsv(teamId: $teamId, action: $action, actorUserId: $actorUserId, targetType: $targetType, since: $since, until: $until) {\n      contentType\n      body\n    }\n  }\n": typeof types.TeamAuditLogCsvDocument,
    "\n  query MyAuditLogCsv($action: String, $targetType: String, $since: String, $until: String) {\n    myAuditLogCsv(action: $action, targetType: $targetType, since: $since, until: $until) {\n      contentType\n      body\n    }\n  }\n": typeof types.MyAuditLogCsvDocument,
    "\n  query ConnectedApps {\n    connectedApps {\n      connectedAppId\n      clientId\n      clientName\n      deploymentIds\n      connectedAt\n      expiresAt\n    }\n    deployments(limit: 100) {\n      data {\n        deploymentId\n        name\n      }\n    }\n  }\n": typeof types.ConnectedAppsDocument,
    "\n  mutation DisconnectApp($connectedAppId: String!) {\n    disconnectApp(connectedAppId: $connectedAppId) {\n      connectedAppId\n      deleted\n    }\n  }\n": typeof types.DisconnectAppDocument,
    "\n  mutation SetDisplayName($displayName: String!) {\n    setDisplayName(displayName: $displayName) {\n      displayName\n    }\n  }\n": typeof types.SetDisplayNameDocument,
    "\n  mutation CreateIdeKey($deploymentId: String!) {\n    createDeploymentInstallKey(deploymentId: $deploymentId, madeBy: \"IDE setup\") {\n      apiKey {\n        keyId\n        name\n        prefix\n        secret\n      }\n    }\n  }\n": typeof types.CreateIdeKeyDocument,
    "\n  mutation ReportWorkflow($workflowId: String!, $reason: String!) {\n    reportWorkflow(workflowId: $workflowId, reason: $reason) {\n      reportId\n    }\n  }\n": typeof types.ReportWorkflowDocument,
    "\n  query SignInMethods {\n    signInMethods {\n      id\n      method\n      label\n      email\n      createdAt\n    }\n    signInMethodsToAdd\n  }\n": typeof types.SignInMethodsDocument,
    "\n  mutation RemoveSignInMethod($id: ID!) {\n    removeSignInMethod(id: $id) {\n      deleted\n    }\n  }\n": typeof types.RemoveSignInMethodDocument,
    "\n  query WorkflowVersions($workflowId: String!) {\n    workflowVersions(workflowId: $workflowId, limit: 100) {\n      data {\n        version\n        name\n        digest\n        createdAt\n      }\n    }\n  }\n": typeof types.WorkflowVersionsDocument,
    "\n  query ComparedVersions($workflowId: String!, $from: String!, $to: String!) {\n    from: workflowVersion(workflowId: $workflowId, version: $from) {\n      manifest\n      manifestSource {\n        format\n        text\n      }\n    }\n    to: workflowVersion(workflowId: $workflowId, version: $to) {\n      manifest\n      manifestSource {\n        format\n        text\n      }\n    }\n  }\n": typeof types.ComparedVersionsDocument,
    "\n  query Account {\n    me {\n      userId\n      email\n      displayName\n      plan\n      createdAt\n      workflowCount\n      deploymentCount\n      subscriptionCount\n      limits {\n        requestsPerMinute\n        requestsPerHour\n      }\n      usage {\n        workflows {\n          used\n          limit\n        }\n        deployments {\n          used\n          limit\n        }\n        subscriptions {\n          used\n          limit\n        }\n        connections {\n          used\n          limit\n        }\n        apiKeys {\n          used\n          limit\n        }\n      }\n      billing {\n        status\n        currentPeriodEnd\n        cancelAtPeriodEnd\n        customerId\n      }\n    }\n    billingPrices\n  }\n": typeof types.AccountDocument,
    "\n  mutation Checkout($priceId: BillingPrice!, $successUrl: String!, $cancelUrl: String!) {\n    createCheckoutSession(priceId: $priceId, successUrl: $successUrl, cancelUrl: $cancelUrl) {\n      checkoutUrl\n    }\n  }\n": typeof types.CheckoutDocument,
    "\n  mutation BillingPortal($returnUrl: String) {\n    createBillingPortalSession(returnUrl: $returnUrl) {\n      portalUrl\n    }\n  }\n": typeof types.BillingPortalDocument,
    "\n  mutation DeleteAccount {\n    deleteMe {\n      deleted\n    }\n  }\n": typeof types.DeleteAccountDocument,
    "\n  query AdminReports {\n    moderationReports(limit: 100) {\n      data {\n        reportId\n        reason\n        createdAt\n        reporter {\n          handle\n        }\n        workflow {\n          workflowId\n          name\n          moderationState\n          owner {\n            handle\n          }\n        }\n      }\n    }\n    moderationActions(limit: 50) {\n      data {\n        actionId\n        workflowId\n        workflowName\n        action\n        reason\n        reportsClosed\n        operatorEmail\n        at\n      }\n    }\n  }\n": typeof types.AdminReportsDocument,
    "\n  mutation ModerateWorkflow($workflowId: String!, $action: ModerationActionKind!, $reason: String!) {\n    moderateWorkflow(workflowId: $workflowId, action: $action, reason: $reason) {\n      actionId\n    }\n  }\n": typeof types.ModerateWorkflowDocument,
    "\n  fragment InstallFields on DeploymentInstall {\n    deploymentId\n    name\n    endpoint\n    allowAnonymous\n    apiKeyIncluded\n    keyBoundEndpoint\n    clients {\n      client\n      title\n      note\n      forms {\n        auth\n        kind\n        label\n        url\n        webUrl\n        commands\n        steps\n        file {\n          path\n          content\n        }\n        usesApiKey\n      }\n    }\n  }\n": typeof types.InstallFieldsFragmentDoc,
    "\n  query DeploymentInstall($deploymentId: String!) {\n    deploymentInstall(deploymentId: $deploymentId) {\n      ...InstallFields\n    }\n  }\n": typeof types.DeploymentInstallDocument,
    "\n  mutation CreateDeploymentInstallKey($deploymentId: String!) {\n    createDeploymentInstallKey(deploymentId: $deploymentId) {\n      apiKey {\n        keyId\n        name\n        prefix\n        secret\n      }\n      install {\n        ...InstallFields\n      }\n    }\n  }\n": typeof types.CreateDeploymentInstallKeyDocument,
    "\n  query Deployment($deploymentId: String!) {\n    deployment(deploymentId: $deploymentId) {\n      deploymentId\n      name\n      description\n      status\n      allowAnonymous\n      enabledAdapters\n      mcpEndpoint\n      createdAt\n      workflows {\n        workflowId\n        name\n        version\n        isOwned\n        available\n        unavailableReason\n      }\n    }\n    deploymentUsage(deploymentId: $deploymentId, period: month) {\n      from\n      to\n      connections {\n        total\n        limit\n        remaining\n      }\n      adapterCounts {\n        adapter\n        count\n      }\n      byDay {\n        date\n        count\n      }\n    }\n  }\n": typeof types.DeploymentDocument,
    "\n  mutation ActivateDeployment($deploymentId: String!) {\n    activateDeployment(deploymentId: $deploymentId) {\n      deploymentId\n      status\n    }\n  }\n": typeof types.ActivateDeploymentDocument,
    "\n  mutation DeactivateDeployment($deploymentId: String!) {\n    deactivateDeployment(deploymentId: $deploymentId) {\n      deploymentId\n      status\n    }\n  }\n": typeof types.DeactivateDeploymentDocument,
    "\n  mutation SetDeploymentAdapter($deploymentId: String!, $adapter: Adapter!, $enabled: Boolean!) {\n    setDeploymentAdapter(deploymentId: $deploymentId, adapter: $adapter, enabled: $enabled) {\n      enabledAdapters\n    }\n  }\n": typeof types.SetDeploymentAdapterDocument,
    "\n  mutation DeleteDeployment($deploymentId: String!) {\n    deleteDeployment(deploymentId: $deploymentId) {\n      deleted\n    }\n  }\n": typeof types.DeleteDeploymentDocument,
    "\n  query Deployments {\n    deployments(limit: 50) {\n      data {\n        deploymentId\n        name\n        status\n        allowAnonymous\n        enabledAdapters\n        createdAt\n        workflows {\n          workflowId\n          name\n        }\n        usage {\n          connectionsThisMonth\n          lastConnectedAt\n        }\n      }\n    }\n    library(activeOnly: true, limit: 100) {\n      data {\n        workflowId\n        workflowName\n        workflowVersion\n        sourceType\n      }\n    }\n    me {\n      plan\n      usage {\n        deployments {\n          used\n          limit\n        }\n      }\n    }\n    billingPrices\n  }\n": typeof types.DeploymentsDocument,
    "\n  mutation CreateDeployment($name: String!, $workflowIds: [String!]!, $enabledAdapters: [Adapter!], $allowAnonymous: Boolean) {\n    createDeployment(name: $name, workflowIds: $workflowIds, enabledAdapters: $enabledAdapters, allowAnonymous: $allowAnonymous) {\n      deploymentId\n    }\n  }\n": typeof types.CreateDeploymentDocument,
    "\n  query Library {\n    library(limit: 100) {\n      data {\n        workflowId\n        workflowName\n        workflowVersion\n        sourceType\n        isActive\n        autoUpdate\n        enabledAdapters\n        addedAt\n        update {\n          fromVersion\n          latestVersion\n          held\n          check {\n            status\n            summary\n            findings {\n              rule\n              severity\n              field\n              excerpt\n              message\n            }\n          }\n          changes {\n            path\n          }\n        }\n      }\n    }\n  }\n": typeof types.LibraryDocument,
    "\n  mutation AcceptLibraryUpdate($workflowId: String!, $version: String) {\n    acceptLibraryUpdate(workflowId: $workflowId, version: $version) {\n      workflowId\n      workflowVersion\n    }\n  }\n": typeof types.AcceptLibraryUpdateDocument,
    "\n  mutation UpdateLibraryEntry($workflowId: String!, $isActive: Boolean, $enabledAdapters: [Adapter!]) {\n    updateLibraryEntry(workflowId: $workflowId, isActive: $isActive, enabledAdapters: $enabledAdapters) {\n      workflowId\n      isActive\n      enabledAdapters\n    }\n  }\n": typeof types.UpdateLibraryEntryDocument,
    "\n  mutation RemoveLibraryEntry($workflowId: String!) {\n    removeFromLibrary(workflowId: $workflowId) {\n      workflowId\n    }\n  }\n": typeof types.RemoveLibraryEntryDocument,
    "\n  fragment MarketplaceCard on MarketplaceWorkflow {\n    workflowId\n    name\n    description\n    category\n    owner {\n      handle\n    }\n    stats {\n      subscribers\n      forks\n      rating\n      ratingCount\n    }\n    check {\n      status\n      summary\n    }\n  }\n": typeof types.MarketplaceCardFragmentDoc,
    "\n  query MarketplaceBrowse($sort: MarketplaceSort) {\n    marketplaceFeatured {\n      data {\n        ...MarketplaceCard\n      }\n    }\n    marketplace(sort: $sort, limit: 30) {\n      data {\n        ...MarketplaceCard\n      }\n    }\n  }\n": typeof types.MarketplaceBrowseDocument,
    "\n  query MarketplaceSearch($q: String!) {\n    marketplaceSearch(q: $q, limit: 30) {\n      data {\n        ...MarketplaceCard\n      }\n    }\n  }\n": typeof types.MarketplaceSearchDocument,
    "\n  query MarketplaceWorkflowPage($workflowId: String!) {\n    workflow(workflowId: $workflowId) {\n      workflowId\n      name\n      description\n      category\n      tags\n      currentVersion\n      allowForks\n      viewerFork {\n        forkId\n      }\n      manifest\n      moderation {\n        state\n        reason\n      }\n      owner {\n        userId\n        handle\n      }\n      stats {\n        subscribers\n        forks\n        rating\n        ratingCount\n      }\n      check {\n        status\n        summary\n        findings {\n          rule\n          severity\n          field\n          excerpt\n          message\n        }\n      }\n    }\n    workflowReviews(workflowId: $workflowId, limit: 50) {\n      data {\n        reviewId\n        rating\n        text\n        createdAt\n        updatedAt\n        author {\n          userId\n          handle\n        }\n      }\n    }\n    library(limit: 100) {\n      data {\n        workflowId\n        sourceType\n      }\n    }\n  }\n": typeof types.MarketplaceWorkflowPageDocument,
    "\n  mutation Subscribe($workflowId: String!) {\n    addToLibrary(workflowId: $workflowId) {\n      workflowId\n    }\n  }\n": typeof types.SubscribeDocument,
    "\n  mutation Fork($workflowId: String!) {\n    forkWorkflow(workflowId: $workflowId) {\n      workflowId\n    }\n  }\n": typeof types.ForkDocument,
    "\n  mutation WriteReview($workflowId: String!, $rating: Int!, $text: String!) {\n    createReview(workflowId: $workflowId, rating: $rating, text: $text) {\n      reviewId\n    }\n  }\n": typeof types.WriteReviewDocument,
    "\n  mutation EditReview($workflowId: String!, $reviewId: String!, $rating: Int!, $text: String!) {\n    updateReview(workflowId: $workflowId, reviewId: $reviewId, rating: $rating, text: $text) {\n      reviewId\n    }\n  }\n": typeof types.EditReviewDocument,
    "\n  mutation DeleteReview($workflowId: String!, $reviewId: String!) {\n    deleteReview(workflowId: $workflowId, reviewId: $reviewId) {\n      deleted\n    }\n  }\n": typeof types.DeleteReviewDocument,
    "\n  mutation Unsubscribe($workflowId: String!) {\n    removeFromLibrary(workflowId: $workflowId) {\n      workflowId\n    }\n  }\n": typeof types.UnsubscribeDocument,
    "\n  query TeamPage($teamId: String!) {\n    team(teamId: $teamId) {\n      teamId\n      name\n      role\n      billingOwnerId\n      createdAt\n    }\n    teamMembers(teamId: $teamId, limit: 100) {\n      data {\n        userId\n        email\n        displayName\n        role\n        joinedAt\n      }\n    }\n  }\n": typeof types.TeamPageDocument,
    "\n  query TeamInvitations($teamId: String!) {\n    teamInvitations(teamId: $teamId, limit: 100) {\n      data {\n        invitationId\n        email\n        role\n        createdAt\n        expiresAt\n      }\n    }\n  }\n": typeof types.TeamInvitationsDocument,
    "\n  mutation InviteTeamMember($teamId: String!, $email: String!, $role: String!) {\n    inviteTeamMember(teamId: $teamId, email: $email, role: $role) {\n      email\n      emailSent\n      acceptUrl\n    }\n  }\n": typeof types.InviteTeamMemberDocument,
    "\n  mutation RevokeTeamInvitation($teamId: String!, $invitationId: String!) {\n    revokeTeamInvitation(teamId: $teamId, invitationId: $invitationId) {\n      deleted\n    }\n  }\n": typeof types.RevokeTeamInvitationDocument,
    "\n  mutation UpdateTeamMember($teamId: String!, $userId: String!, $role: String!) {\n    updateTeamMember(teamId: $teamId, userId: $userId, role: $role) {\n      role\n    }\n  }\n": typeof types.UpdateTeamMemberDocument,
    "\n  mutation RemoveTeamMember($teamId: String!, $userId: String!) {\n    removeTeamMember(teamId: $teamId, userId: $userId) {\n      deleted\n    }\n  }\n": typeof types.RemoveTeamMemberDocument,
    "\n  mutation SetTeamBillingOwner($teamId: String!, $userId: String!) {\n    setTeamBillingOwner(teamId: $teamId, userId: $userId) {\n      billingOwnerId\n    }\n  }\n": typeof types.SetTeamBillingOwnerDocument,
    "\n  query Teams {\n    teams(limit: 100) {\n      data {\n        teamId\n        name\n        role\n        createdAt\n      }\n    }\n  }\n": typeof types.TeamsDocument,
    "\n  mutation CreateTeam($name: String!) {\n    createTeam(name: $name) {\n      teamId\n    }\n  }\n": typeof types.CreateTeamDocument,
    "\n  query EditWorkflow($workflowId: String!) {\n    workflow(workflowId: $workflowId) {\n      workflowId\n      name\n      description\n      category\n      tags\n      visibility\n      allowForks\n      currentVersion\n      revision\n      digest\n      moderation {\n        state\n        reason\n      }\n      forkedFrom {\n        workflowId\n      }\n      manifestSource {\n        format\n        text\n      }\n    }\n  }\n": typeof types.EditWorkflowDocument,
    "\n  mutation CreateWorkflow(\n    $name: String!\n    $description: String\n    $category: String\n    $tags: [String!]\n    $visibility: Visibility\n    $manifest: JSON!\n  ) {\n    createWorkflow(name: $name, description: $description, category: $category, tags: $tags, visibility: $visibility, manifest: $manifest) {\n      workflowId\n    }\n  }\n": typeof types.CreateWorkflowDocument,
    "\n  mutation UpdateWorkflow(\n    $workflowId: String!\n    $name: String!\n    $description: String\n    $category: String\n    $tags: [String!]\n    $visibility: Visibility\n    $manifest: JSON!\n    $expectedRevision: Int\n  ) {\n    updateWorkflow(\n      workflowId: $workflowId\n      name: $name\n      description: $description\n      category: $category\n      tags: $tags\n      visibility: $visibility\n      manifest: $manifest\n      expectedRevision: $expectedRevision\n    ) {\n      workflowId\n      currentVersion\n      revision\n    }\n  }\n": typeof types.UpdateWorkflowDocument,
    "\n  mutation DeleteWorkflow($workflowId: String!) {\n    deleteWorkflow(workflowId: $workflowId) {\n      deleted\n    }\n  }\n": typeof types.DeleteWorkflowDocument,
    "\n  query OwnPublicName {\n    me {\n      displayName\n    }\n  }\n": typeof types.OwnPublicNameDocument,
    "\n  query DeploymentsUsing {\n    deployments(limit: 50) {\n      data {\n        deploymentId\n        name\n        workflows {\n          workflowId\n        }\n      }\n    }\n  }\n": typeof types.DeploymentsUsingDocument,
    "\n  query ManifestDocument($workflowId: String!, $format: String) {\n    workflowManifest(workflowId: $workflowId, format: $format) {\n      body\n      contentType\n    }\n  }\n": typeof types.ManifestDocumentDocument,
    "\n  query Workflows {\n    workflows(limit: 100) {\n      data {\n        workflowId\n        name\n        description\n        visibility\n        currentVersion\n        updatedAt\n        stats {\n          subscribers\n          forks\n          rating\n          ratingCount\n        }\n      }\n    }\n  }\n": typeof types.WorkflowsDocument,
};
const documents: Documents = {
    "\n  query Viewer {\n    me {\n      userId\n      email\n      plan\n      isOperator\n    }\n  }\n": types.ViewerDocument,
    "\n  query ApiKeys {\n    apiKeys(limit: 100) {\n      data {\n        keyId\n        name\n        scope\n        deploymentIds\n        prefix\n        createdAt\n        lastUsedAt\n        expiresAt\n      }\n    }\n    deployments(limit: 100) {\n      data {\n        deploymentId\n        name\n      }\n    }\n  }\n": types.ApiKeysDocument,
    "\n  mutation CreateApiKey($name: String!, $scope: String, $expiresAt: String) {\n    createApiKey(name: $name, scope: $scope, expiresAt: $expiresAt) {\n      keyId\n      name\n      secret\n    }\n  }\n": types.CreateApiKeyDocument,
    "\n  mutation RevokeApiKey($keyId: String!) {\n    revokeApiKey(keyId: $keyId) {\n      keyId\n      deleted\n    }\n  }\n": types.RevokeApiKeyDocument,
    "\n  query TeamAuditLog(\n    $teamId: String!\n    $cursor: String\n    $action: String\n    $actorUserId: String\n    $targetType: String\n    $since: String\n    $until: String\n  ) {\n    teamAuditLog(\n      teamId: $teamId\n      limit: 50\n      cursor: $cursor\n      action: $action\n      actorUserId: $actorUserId\n      targetType: $targetType\n      since: $since\n      until: $until\n    ) {\n      data {\n        entryId\n        action\n        actorUserId\n        targetType\n        targetId\n        details\n        at\n      }\n      pagination {\n        hasMore\n        nextCursor\n      }\n    }\n  }\n": types.TeamAuditLogDocument,
    "\n  query MyAuditLog($cursor: String, $action: String, $targetType: String, $since: String, $until: String) {\n    myAuditLog(limit: 50, cursor: $cursor, action: $action, targetType: $targetType, since: $since, until: $until) {\n      data {\n        entryId\n        action\n        actorUserId\n        targetType\n        targetId\n        details\n        at\n      }\n      pagination {\n        hasMore\n        nextCursor\n      }\n    }\n  }\n": types.MyAuditLogDocument,
    "\n  query TeamAuditLogCsv($teamId: String!, $action: String, $actorUserId: String, $targetType: String, $since: String, $until: String) {\n    teamAuditLogCsv(teamId: $teamId, action: $action, actorUserId: $actorUserId, targetType: $targetType, since: $since, until: $until) {\n      contentType\n      body\n    }\n  }\n": types.TeamAuditLogCsvDocument,
    "\n  query MyAuditLogCsv($action: String, $targetType: String, $since: String, $until: String) {\n    myAuditLogCsv(action: $action, targetType: $targetType, since: $since, until: $until) {\n      contentType\n      body\n    }\n  }\n": types.MyAuditLogCsvDocument,
    "\n  query ConnectedApps {\n    connectedApps {\n      connectedAppId\n      clientId\n      clientName\n      deploymentIds\n      connectedAt\n      expiresAt\n    }\n    deployments(limit: 100) {\n      data {\n        deploymentId\n        name\n      }\n    }\n  }\n": types.ConnectedAppsDocument,
    "\n  mutation DisconnectApp($connectedAppId: String!) {\n    disconnectApp(connectedAppId: $connectedAppId) {\n      connectedAppId\n      deleted\n    }\n  }\n": types.DisconnectAppDocument,
    "\n  mutation SetDisplayName($displayName: String!) {\n    setDisplayName(displayName: $displayName) {\n      displayName\n    }\n  }\n": types.SetDisplayNameDocument,
    "\n  mutation CreateIdeKey($deploymentId: String!) {\n    createDeploymentInstallKey(deploymentId: $deploymentId, madeBy: \"IDE setup\") {\n      apiKey {\n        keyId\n        name\n        prefix\n        secret\n      }\n    }\n  }\n": types.CreateIdeKeyDocument,
    "\n  mutation ReportWorkflow($workflowId: String!, $reason: String!) {\n    reportWorkflow(workflowId: $workflowId, reason: $reason) {\n      reportId\n    }\n  }\n": types.ReportWorkflowDocument,
    "\n  query SignInMethods {\n    signInMethods {\n      id\n      method\n      label\n      email\n      createdAt\n    }\n    signInMethodsToAdd\n  }\n": types.SignInMethodsDocument,
    "\n  mutation RemoveSignInMethod($id: ID!) {\n    removeSignInMethod(id: $id) {\n      deleted\n    }\n  }\n": types.RemoveSignInMethodDocument,
    "\n  query WorkflowVersions($workflowId: String!) {\n    workflowVersions(workflowId: $workflowId, limit: 100) {\n      data {\n        version\n        name\n        digest\n        createdAt\n      }\n    }\n  }\n": types.WorkflowVersionsDocument,
    "\n  query ComparedVersions($workflowId: String!, $from: String!, $to: String!) {\n    from: workflowVersion(workflowId: $workflowId, version: $from) {\n      manifest\n      manifestSource {\n        format\n        text\n      }\n    }\n    to: workflowVersion(workflowId: $workflowId, version: $to) {\n      manifest\n      manifestSource {\n        format\n        text\n      }\n    }\n  }\n": types.ComparedVersionsDocument,
    "\n  query Account {\n    me {\n      userId\n      email\n      displayName\n      plan\n      createdAt\n      workflowCount\n      deploymentCount\n      subscriptionCount\n      limits {\n        requestsPerMinute\n        requestsPerHour\n      }\n      usage {\n        workflows {\n          used\n          limit\n        }\n        deployments {\n          used\n          limit\n        }\n        subscriptions {\n          used\n          limit\n        }\n        connections {\n          used\n          limit\n        }\n        apiKeys {\n          used\n          limit\n        }\n      }\n      billing {\n        status\n        currentPeriodEnd\n        cancelAtPeriodEnd\n        customerId\n      }\n    }\n    billingPrices\n  }\n": types.AccountDocument,
    "\n  mutation Checkout($priceId: BillingPrice!, $successUrl: String!, $cancelUrl: String!) {\n    createCheckoutSession(priceId: $priceId, successUrl: $successUrl, cancelUrl: $cancelUrl) {\n      checkoutUrl\n    }\n  }\n": types.CheckoutDocument,
    "\n  mutation BillingPortal($returnUrl: String) {\n    createBillingPortalSession(returnUrl: $returnUrl) {\n      portalUrl\n    }\n  }\n": types.BillingPortalDocument,
    "\n  mutation DeleteAccount {\n    deleteMe {\n      deleted\n    }\n  }\n": types.DeleteAccountDocument,
    "\n  query AdminReports {\n    moderationReports(limit: 100) {\n      data {\n        reportId\n        reason\n        createdAt\n        reporter {\n          handle\n        }\n        workflow {\n          workflowId\n          name\n          moderationState\n          owner {\n            handle\n          }\n        }\n      }\n    }\n    moderationActions(limit: 50) {\n      data {\n        actionId\n        workflowId\n        workflowName\n        action\n        reason\n        reportsClosed\n        operatorEmail\n        at\n      }\n    }\n  }\n": types.AdminReportsDocument,
    "\n  mutation ModerateWorkflow($workflowId: String!, $action: ModerationActionKind!, $reason: String!) {\n    moderateWorkflow(workflowId: $workflowId, action: $action, reason: $reason) {\n      actionId\n    }\n  }\n": types.ModerateWorkflowDocument,
    "\n  fragment InstallFields on DeploymentInstall {\n    deploymentId\n    name\n    endpoint\n    allowAnonymous\n    apiKeyIncluded\n    keyBoundEndpoint\n    clients {\n      client\n      title\n      note\n      forms {\n        auth\n        kind\n        label\n        url\n        webUrl\n        commands\n        steps\n        file {\n          path\n          content\n        }\n        usesApiKey\n      }\n    }\n  }\n": types.InstallFieldsFragmentDoc,
    "\n  query DeploymentInstall($deploymentId: String!) {\n    deploymentInstall(deploymentId: $deploymentId) {\n      ...InstallFields\n    }\n  }\n": types.DeploymentInstallDocument,
    "\n  mutation CreateDeploymentInstallKey($deploymentId: String!) {\n    createDeploymentInstallKey(deploymentId: $deploymentId) {\n      apiKey {\n        keyId\n        name\n        prefix\n        secret\n      }\n      install {\n        ...InstallFields\n      }\n    }\n  }\n": types.CreateDeploymentInstallKeyDocument,
    "\n  query Deployment($deploymentId: String!) {\n    deployment(deploymentId: $deploymentId) {\n      deploymentId\n      name\n      description\n      status\n      allowAnonymous\n      enabledAdapters\n      mcpEndpoint\n      createdAt\n      workflows {\n        workflowId\n        name\n        version\n        isOwned\n        available\n        unavailableReason\n      }\n    }\n    deploymentUsage(deploymentId: $deploymentId, period: month) {\n      from\n      to\n      connections {\n        total\n        limit\n        remaining\n      }\n      adapterCounts {\n        adapter\n        count\n      }\n      byDay {\n        date\n        count\n      }\n    }\n  }\n": types.DeploymentDocument,
    "\n  mutation ActivateDeployment($deploymentId: String!) {\n    activateDeployment(deploymentId: $deploymentId) {\n      deploymentId\n      status\n    }\n  }\n": types.ActivateDeploymentDocument,
    "\n  mutation DeactivateDeployment($deploymentId: String!) {\n    deactivateDeployment(deploymentId: $deploymentId) {\n      deploymentId\n      status\n    }\n  }\n": types.DeactivateDeploymentDocument,
    "\n  mutation SetDeploymentAdapter($deploymentId: String!, $adapter: Adapter!, $enabled: Boolean!) {\n    setDeploymentAdapter(deploymentId: $deploymentId, adapter: $adapter, enabled: $enabled) {\n      enabledAdapters\n    }\n  }\n": types.SetDeploymentAdapterDocument,
    "\n  mutation DeleteDeployment($deploymentId: String!) {\n    deleteDeployment(deploymentId: $deploymentId) {\n      deleted\n    }\n  }\n": types.DeleteDeploymentDocument,
    "\n  query Deployments {\n    deployments(limit: 50) {\n      data {\n        deploymentId\n        name\n        status\n        allowAnonymous\n        enabledAdapters\n        createdAt\n        workflows {\n          workflowId\n          name\n        }\n        usage {\n          connectionsThisMonth\n          lastConnectedAt\n        }\n      }\n    }\n    library(activeOnly: true, limit: 100) {\n      data {\n        workflowId\n        workflowName\n        workflowVersion\n        sourceType\n      }\n    }\n    me {\n      plan\n      usage {\n        deployments {\n          used\n          limit\n        }\n      }\n    }\n    billingPrices\n  }\n": types.DeploymentsDocument,
    "\n  mutation CreateDeployment($name: String!, $workflowIds: [String!]!, $enabledAdapters: [Adapter!], $allowAnonymous: Boolean) {\n    createDeployment(name: $name, workflowIds: $workflowIds, enabledAdapters: $enabledAdapters, allowAnonymous: $allowAnonymous) {\n      deploymentId\n    }\n  }\n": types.CreateDeploymentDocument,
    "\n  query Library {\n    library(limit: 100) {\n      data {\n        workflowId\n        workflowName\n        workflowVersion\n        sourceType\n        isActive\n        autoUpdate\n        enabledAdapters\n        addedAt\n        update {\n          fromVersion\n          latestVersion\n          held\n          check {\n            status\n            summary\n            findings {\n              rule\n              severity\n              field\n              excerpt\n              message\n            }\n          }\n          changes {\n            path\n          }\n        }\n      }\n    }\n  }\n": types.LibraryDocument,
    "\n  mutation AcceptLibraryUpdate($workflowId: String!, $version: String) {\n    acceptLibraryUpdate(workflowId: $workflowId, version: $version) {\n      workflowId\n      workflowVersion\n    }\n  }\n": types.AcceptLibraryUpdateDocument,
    "\n  mutation UpdateLibraryEntry($workflowId: String!, $isActive: Boolean, $enabledAdapters: [Adapter!]) {\n    updateLibraryEntry(workflowId: $workflowId, isActive: $isActive, enabledAdapters: $enabledAdapters) {\n      workflowId\n      isActive\n      enabledAdapters\n    }\n  }\n": types.UpdateLibraryEntryDocument,
    "\n  mutation RemoveLibraryEntry($workflowId: String!) {\n    removeFromLibrary(workflowId: $workflowId) {\n      workflowId\n    }\n  }\n": types.RemoveLibraryEntryDocument,
    "\n  fragment MarketplaceCard on MarketplaceWorkflow {\n    workflowId\n    name\n    description\n    category\n    owner {\n      handle\n    }\n    stats {\n      subscribers\n      forks\n      rating\n      ratingCount\n    }\n    check {\n      status\n      summary\n    }\n  }\n": types.MarketplaceCardFragmentDoc,
    "\n  query MarketplaceBrowse($sort: MarketplaceSort) {\n    marketplaceFeatured {\n      data {\n        ...MarketplaceCard\n      }\n    }\n    marketplace(sort: $sort, limit: 30) {\n      data {\n        ...MarketplaceCard\n      }\n    }\n  }\n": types.MarketplaceBrowseDocument,
    "\n  query MarketplaceSearch($q: String!) {\n    marketplaceSearch(q: $q, limit: 30) {\n      data {\n        ...MarketplaceCard\n      }\n    }\n  }\n": types.MarketplaceSearchDocument,
    "\n  query MarketplaceWorkflowPage($workflowId: String!) {\n    workflow(workflowId: $workflowId) {\n      workflowId\n      name\n      description\n      category\n      tags\n      currentVersion\n      allowForks\n      viewerFork {\n        forkId\n      }\n      manifest\n      moderation {\n        state\n        reason\n      }\n      owner {\n        userId\n        handle\n      }\n      stats {\n        subscribers\n        forks\n        rating\n        ratingCount\n      }\n      check {\n        status\n        summary\n        findings {\n          rule\n          severity\n          field\n          excerpt\n          message\n        }\n      }\n    }\n    workflowReviews(workflowId: $workflowId, limit: 50) {\n      data {\n        reviewId\n        rating\n        text\n        createdAt\n        updatedAt\n        author {\n          userId\n          handle\n        }\n      }\n    }\n    library(limit: 100) {\n      data {\n        workflowId\n        sourceType\n      }\n    }\n  }\n": types.MarketplaceWorkflowPageDocument,
    "\n  mutation Subscribe($workflowId: String!) {\n    addToLibrary(workflowId: $workflowId) {\n      workflowId\n    }\n  }\n": types.SubscribeDocument,
    "\n  mutation Fork($workflowId: String!) {\n    forkWorkflow(workflowId: $workflowId) {\n      workflowId\n    }\n  }\n": types.ForkDocument,
    "\n  mutation WriteReview($workflowId: String!, $rating: Int!, $text: String!) {\n    createReview(workflowId: $workflowId, rating: $rating, text: $text) {\n      reviewId\n    }\n  }\n": types.WriteReviewDocument,
    "\n  mutation EditReview($workflowId: String!, $reviewId: String!, $rating: Int!, $text: String!) {\n    updateReview(workflowId: $workflowId, reviewId: $reviewId, rating: $rating, text: $text) {\n      reviewId\n    }\n  }\n": types.EditReviewDocument,
    "\n  mutation DeleteReview($workflowId: String!, $reviewId: String!) {\n    deleteReview(workflowId: $workflowId, reviewId: $reviewId) {\n      deleted\n    }\n  }\n": types.DeleteReviewDocument,
    "\n  mutation Unsubscribe($workflowId: String!) {\n    removeFromLibrary(workflowId: $workflowId) {\n      workflowId\n    }\n  }\n": types.UnsubscribeDocument,
    "\n  query TeamPage($teamId: String!) {\n    team(teamId: $teamId) {\n      teamId\n      name\n      role\n      billingOwnerId\n      createdAt\n    }\n    teamMembers(teamId: $teamId, limit: 100) {\n      data {\n        userId\n        email\n        displayName\n        role\n        joinedAt\n      }\n    }\n  }\n": types.TeamPageDocument,
    "\n  query TeamInvitations($teamId: String!) {\n    teamInvitations(teamId: $teamId, limit: 100) {\n      data {\n        invitationId\n        email\n        role\n        createdAt\n        expiresAt\n      }\n    }\n  }\n": types.TeamInvitationsDocument,
    "\n  mutation InviteTeamMember($teamId: String!, $email: String!, $role: String!) {\n    inviteTeamMember(teamId: $teamId, email: $email, role: $role) {\n      email\n      emailSent\n      acceptUrl\n    }\n  }\n": types.InviteTeamMemberDocument,
    "\n  mutation RevokeTeamInvitation($teamId: String!, $invitationId: String!) {\n    revokeTeamInvitation(teamId: $teamId, invitationId: $invitationId) {\n      deleted\n    }\n  }\n": types.RevokeTeamInvitationDocument,
    "\n  mutation UpdateTeamMember($teamId: String!, $userId: String!, $role: String!) {\n    updateTeamMember(teamId: $teamId, userId: $userId, role: $role) {\n      role\n    }\n  }\n": types.UpdateTeamMemberDocument,
    "\n  mutation RemoveTeamMember($teamId: String!, $userId: String!) {\n    removeTeamMember(teamId: $teamId, userId: $userId) {\n      deleted\n    }\n  }\n": types.RemoveTeamMemberDocument,
    "\n  mutation SetTeamBillingOwner($teamId: String!, $userId: String!) {\n    setTeamBillingOwner(teamId: $teamId, userId: $userId) {\n      billingOwnerId\n    }\n  }\n": types.SetTeamBillingOwnerDocument,
    "\n  query Teams {\n    teams(limit: 100) {\n      data {\n        teamId\n        name\n        role\n        createdAt\n      }\n    }\n  }\n": types.TeamsDocument,
    "\n  mutation CreateTeam($name: String!) {\n    createTeam(name: $name) {\n      teamId\n    }\n  }\n": types.CreateTeamDocument,
    "\n  query EditWorkflow($workflowId: String!) {\n    workflow(workflowId: $workflowId) {\n      workflowId\n      name\n      description\n      category\n      tags\n      visibility\n      allowForks\n      currentVersion\n      revision\n      digest\n      moderation {\n        state\n        reason\n      }\n      forkedFrom {\n        workflowId\n      }\n      manifestSource {\n        format\n        text\n      }\n    }\n  }\n": types.EditWorkflowDocument,
    "\n  mutation CreateWorkflow(\n    $name: String!\n    $description: String\n    $category: String\n    $tags: [String!]\n    $visibility: Visibility\n    $manifest: JSON!\n  ) {\n    createWorkflow(name: $name, description: $description, category: $category, tags: $tags, visibility: $visibility, manifest: $manifest) {\n      workflowId\n    }\n  }\n": types.CreateWorkflowDocument,
    "\n  mutation UpdateWorkflow(\n    $workflowId: String!\n    $name: String!\n    $description: String\n    $category: String\n    $tags: [String!]\n    $visibility: Visibility\n    $manifest: JSON!\n    $expectedRevision: Int\n  ) {\n    updateWorkflow(\n      workflowId: $workflowId\n      name: $name\n      description: $description\n      category: $category\n      tags: $tags\n      visibility: $visibility\n      manifest: $manifest\n      expectedRevision: $expectedRevision\n    ) {\n      workflowId\n      currentVersion\n      revision\n    }\n  }\n": types.UpdateWorkflowDocument,
    "\n  mutation DeleteWorkflow($workflowId: String!) {\n    deleteWorkflow(workflowId: $workflowId) {\n      deleted\n    }\n  }\n": types.DeleteWorkflowDocument,
    "\n  query OwnPublicName {\n    me {\n      displayName\n    }\n  }\n": types.OwnPublicNameDocument,
    "\n  query DeploymentsUsing {\n    deployments(limit: 50) {\n      data {\n        deploymentId\n        name\n        workflows {\n          workflowId\n        }\n      }\n    }\n  }\n": types.DeploymentsUsingDocument,
    "\n  query ManifestDocument($workflowId: String!, $format: String) {\n    workflowManifest(workflowId: $workflowId, format: $format) {\n      body\n      contentType\n    }\n  }\n": types.ManifestDocumentDocument,
    "\n  query Workflows {\n    workflows(limit: 100) {\n      data {\n        workflowId\n        name\n        description\n        visibility\n        currentVersion\n        updatedAt\n        stats {\n          subscribers\n          forks\n          rating\n          ratingCount\n        }\n      }\n    }\n  }\n": types.WorkflowsDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Viewer {\n    me {\n      userId\n      email\n      plan\n      isOperator\n    }\n  }\n"): typeof import('./graphql').ViewerDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ApiKeys {\n    apiKeys(limit: 100) {\n      data {\n        keyId\n        name\n        scope\n        deploymentIds\n        prefix\n        createdAt\n        lastUsedAt\n        expiresAt\n      }\n    }\n    deployments(limit: 100) {\n      data {\n        deploymentId\n        name\n      }\n    }\n  }\n"): typeof import('./graphql').ApiKeysDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateApiKey($name: String!, $scope: String, $expiresAt: String) {\n    createApiKey(name: $name, scope: $scope, expiresAt: $expiresAt) {\n      keyId\n      name\n      secret\n    }\n  }\n"): typeof import('./graphql').CreateApiKeyDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RevokeApiKey($keyId: String!) {\n    revokeApiKey(keyId: $keyId) {\n      keyId\n      deleted\n    }\n  }\n"): typeof import('./graphql').RevokeApiKeyDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TeamAuditLog(\n    $teamId: String!\n    $cursor: String\n    $action: String\n    $actorUserId: String\n    $targetType: String\n    $since: String\n    $until: String\n  ) {\n    teamAuditLog(\n      teamId: $teamId\n      limit: 50\n      cursor: $cursor\n      action: $action\n      actorUserId: $actorUserId\n      targetType: $targetType\n      since: $since\n      until: $until\n    ) {\n      data {\n        entryId\n        action\n        actorUserId\n        targetType\n        targetId\n        details\n        at\n      }\n      pagination {\n        hasMore\n        nextCursor\n      }\n    }\n  }\n"): typeof import('./graphql').TeamAuditLogDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query MyAuditLog($cursor: String, $action: String, $targetType: String, $since: String, $until: String) {\n    myAuditLog(limit: 50, cursor: $cursor, action: $action, targetType: $targetType, since: $since, until: $until) {\n      data {\n        entryId\n        action\n        actorUserId\n        targetType\n        targetId\n        details\n        at\n      }\n      pagination {\n        hasMore\n        nextCursor\n      }\n    }\n  }\n"): typeof import('./graphql').MyAuditLogDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TeamAuditLogCsv($teamId: String!, $action: String, $actorUserId: String, $targetType: String, $since: String, $until: String) {\n    teamAuditLogCsv(teamId: $teamId, action: $action, actorUserId: $actorUserId, targetType: $targetType, since: $since, until: $until) {\n      contentType\n      body\n    }\n  }\n"): typeof import('./graphql').TeamAuditLogCsvDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query MyAuditLogCsv($action: String, $targetType: String, $since: String, $until: String) {\n    myAuditLogCsv(action: $action, targetType: $targetType, since: $since, until: $until) {\n      contentType\n      body\n    }\n  }\n"): typeof import('./graphql').MyAuditLogCsvDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConnectedApps {\n    connectedApps {\n      connectedAppId\n      clientId\n      clientName\n      deploymentIds\n      connectedAt\n      expiresAt\n    }\n    deployments(limit: 100) {\n      data {\n        deploymentId\n        name\n      }\n    }\n  }\n"): typeof import('./graphql').ConnectedAppsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DisconnectApp($connectedAppId: String!) {\n    disconnectApp(connectedAppId: $connectedAppId) {\n      connectedAppId\n      deleted\n    }\n  }\n"): typeof import('./graphql').DisconnectAppDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetDisplayName($displayName: String!) {\n    setDisplayName(displayName: $displayName) {\n      displayName\n    }\n  }\n"): typeof import('./graphql').SetDisplayNameDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateIdeKey($deploymentId: String!) {\n    createDeploymentInstallKey(deploymentId: $deploymentId, madeBy: \"IDE setup\") {\n      apiKey {\n        keyId\n        name\n        prefix\n        secret\n      }\n    }\n  }\n"): typeof import('./graphql').CreateIdeKeyDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ReportWorkflow($workflowId: String!, $reason: String!) {\n    reportWorkflow(workflowId: $workflowId, reason: $reason) {\n      reportId\n    }\n  }\n"): typeof import('./graphql').ReportWorkflowDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query SignInMethods {\n    signInMethods {\n      id\n      method\n      label\n      email\n      createdAt\n    }\n    signInMethodsToAdd\n  }\n"): typeof import('./graphql').SignInMethodsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RemoveSignInMethod($id: ID!) {\n    removeSignInMethod(id: $id) {\n      deleted\n    }\n  }\n"): typeof import('./graphql').RemoveSignInMethodDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query WorkflowVersions($workflowId: String!) {\n    workflowVersions(workflowId: $workflowId, limit: 100) {\n      data {\n        version\n        name\n        digest\n        createdAt\n      }\n    }\n  }\n"): typeof import('./graphql').WorkflowVersionsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ComparedVersions($workflowId: String!, $from: String!, $to: String!) {\n    from: workflowVersion(workflowId: $workflowId, version: $from) {\n      manifest\n      manifestSource {\n        format\n        text\n      }\n    }\n    to: workflowVersion(workflowId: $workflowId, version: $to) {\n      manifest\n      manifestSource {\n        format\n        text\n      }\n    }\n  }\n"): typeof import('./graphql').ComparedVersionsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Account {\n    me {\n      userId\n      email\n      displayName\n      plan\n      createdAt\n      workflowCount\n      deploymentCount\n      subscriptionCount\n      limits {\n        requestsPerMinute\n        requestsPerHour\n      }\n      usage {\n        workflows {\n          used\n          limit\n        }\n        deployments {\n          used\n          limit\n        }\n        subscriptions {\n          used\n          limit\n        }\n        connections {\n          used\n          limit\n        }\n        apiKeys {\n          used\n          limit\n        }\n      }\n      billing {\n        status\n        currentPeriodEnd\n        cancelAtPeriodEnd\n        customerId\n      }\n    }\n    billingPrices\n  }\n"): typeof import('./graphql').AccountDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation Checkout($priceId: BillingPrice!, $successUrl: String!, $cancelUrl: String!) {\n    createCheckoutSession(priceId: $priceId, successUrl: $successUrl, cancelUrl: $cancelUrl) {\n      checkoutUrl\n    }\n  }\n"): typeof import('./graphql').CheckoutDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation BillingPortal($returnUrl: String) {\n    createBillingPortalSession(returnUrl: $returnUrl) {\n      portalUrl\n    }\n  }\n"): typeof import('./graphql').BillingPortalDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteAccount {\n    deleteMe {\n      deleted\n    }\n  }\n"): typeof import('./graphql').DeleteAccountDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AdminReports {\n    moderationReports(limit: 100) {\n      data {\n        reportId\n        reason\n        createdAt\n        reporter {\n          handle\n        }\n        workflow {\n          workflowId\n          name\n          moderationState\n          owner {\n            handle\n          }\n        }\n      }\n    }\n    moderationActions(limit: 50) {\n      data {\n        actionId\n        workflowId\n        workflowName\n        action\n        reason\n        reportsClosed\n        operatorEmail\n        at\n      }\n    }\n  }\n"): typeof import('./graphql').AdminReportsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ModerateWorkflow($workflowId: String!, $action: ModerationActionKind!, $reason: String!) {\n    moderateWorkflow(workflowId: $workflowId, action: $action, reason: $reason) {\n      actionId\n    }\n  }\n"): typeof import('./graphql').ModerateWorkflowDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment InstallFields on DeploymentInstall {\n    deploymentId\n    name\n    endpoint\n    allowAnonymous\n    apiKeyIncluded\n    keyBoundEndpoint\n    clients {\n      client\n      title\n      note\n      forms {\n        auth\n        kind\n        label\n        url\n        webUrl\n        commands\n        steps\n        file {\n          path\n          content\n        }\n        usesApiKey\n      }\n    }\n  }\n"): typeof import('./graphql').InstallFieldsFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DeploymentInstall($deploymentId: String!) {\n    deploymentInstall(deploymentId: $deploymentId) {\n      ...InstallFields\n    }\n  }\n"): typeof import('./graphql').DeploymentInstallDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateDeploymentInstallKey($deploymentId: String!) {\n    createDeploymentInstallKey(deploymentId: $deploymentId) {\n      apiKey {\n        keyId\n        name\n        prefix\n        secret\n      }\n      install {\n        ...InstallFields\n      }\n    }\n  }\n"): typeof import('./graphql').CreateDeploymentInstallKeyDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Deployment($deploymentId: String!) {\n    deployment(deploymentId: $deploymentId) {\n      deploymentId\n      name\n      description\n      status\n      allowAnonymous\n      enabledAdapters\n      mcpEndpoint\n      createdAt\n      workflows {\n        workflowId\n        name\n        version\n        isOwned\n        available\n        unavailableReason\n      }\n    }\n    deploymentUsage(deploymentId: $deploymentId, period: month) {\n      from\n      to\n      connections {\n        total\n        limit\n        remaining\n      }\n      adapterCounts {\n        adapter\n        count\n      }\n      byDay {\n        date\n        count\n      }\n    }\n  }\n"): typeof import('./graphql').DeploymentDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ActivateDeployment($deploymentId: String!) {\n    activateDeployment(deploymentId: $deploymentId) {\n      deploymentId\n      status\n    }\n  }\n"): typeof import('./graphql').ActivateDeploymentDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeactivateDeployment($deploymentId: String!) {\n    deactivateDeployment(deploymentId: $deploymentId) {\n      deploymentId\n      status\n    }\n  }\n"): typeof import('./graphql').DeactivateDeploymentDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetDeploymentAdapter($deploymentId: String!, $adapter: Adapter!, $enabled: Boolean!) {\n    setDeploymentAdapter(deploymentId: $deploymentId, adapter: $adapter, enabled: $enabled) {\n      enabledAdapters\n    }\n  }\n"): typeof import('./graphql').SetDeploymentAdapterDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteDeployment($deploymentId: String!) {\n    deleteDeployment(deploymentId: $deploymentId) {\n      deleted\n    }\n  }\n"): typeof import('./graphql').DeleteDeploymentDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Deployments {\n    deployments(limit: 50) {\n      data {\n        deploymentId\n        name\n        status\n        allowAnonymous\n        enabledAdapters\n        createdAt\n        workflows {\n          workflowId\n          name\n        }\n        usage {\n          connectionsThisMonth\n          lastConnectedAt\n        }\n      }\n    }\n    library(activeOnly: true, limit: 100) {\n      data {\n        workflowId\n        workflowName\n        workflowVersion\n        sourceType\n      }\n    }\n    me {\n      plan\n      usage {\n        deployments {\n          used\n          limit\n        }\n      }\n    }\n    billingPrices\n  }\n"): typeof import('./graphql').DeploymentsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateDeployment($name: String!, $workflowIds: [String!]!, $enabledAdapters: [Adapter!], $allowAnonymous: Boolean) {\n    createDeployment(name: $name, workflowIds: $workflowIds, enabledAdapters: $enabledAdapters, allowAnonymous: $allowAnonymous) {\n      deploymentId\n    }\n  }\n"): typeof import('./graphql').CreateDeploymentDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Library {\n    library(limit: 100) {\n      data {\n        workflowId\n        workflowName\n        workflowVersion\n        sourceType\n        isActive\n        autoUpdate\n        enabledAdapters\n        addedAt\n        update {\n          fromVersion\n          latestVersion\n          held\n          check {\n            status\n            summary\n            findings {\n              rule\n              severity\n              field\n              excerpt\n              message\n            }\n          }\n          changes {\n            path\n          }\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').LibraryDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation AcceptLibraryUpdate($workflowId: String!, $version: String) {\n    acceptLibraryUpdate(workflowId: $workflowId, version: $version) {\n      workflowId\n      workflowVersion\n    }\n  }\n"): typeof import('./graphql').AcceptLibraryUpdateDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateLibraryEntry($workflowId: String!, $isActive: Boolean, $enabledAdapters: [Adapter!]) {\n    updateLibraryEntry(workflowId: $workflowId, isActive: $isActive, enabledAdapters: $enabledAdapters) {\n      workflowId\n      isActive\n      enabledAdapters\n    }\n  }\n"): typeof import('./graphql').UpdateLibraryEntryDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RemoveLibraryEntry($workflowId: String!) {\n    removeFromLibrary(workflowId: $workflowId) {\n      workflowId\n    }\n  }\n"): typeof import('./graphql').RemoveLibraryEntryDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment MarketplaceCard on MarketplaceWorkflow {\n    workflowId\n    name\n    description\n    category\n    owner {\n      handle\n    }\n    stats {\n      subscribers\n      forks\n      rating\n      ratingCount\n    }\n    check {\n      status\n      summary\n    }\n  }\n"): typeof import('./graphql').MarketplaceCardFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query MarketplaceBrowse($sort: MarketplaceSort) {\n    marketplaceFeatured {\n      data {\n        ...MarketplaceCard\n      }\n    }\n    marketplace(sort: $sort, limit: 30) {\n      data {\n        ...MarketplaceCard\n      }\n    }\n  }\n"): typeof import('./graphql').MarketplaceBrowseDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query MarketplaceSearch($q: String!) {\n    marketplaceSearch(q: $q, limit: 30) {\n      data {\n        ...MarketplaceCard\n      }\n    }\n  }\n"): typeof import('./graphql').MarketplaceSearchDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query MarketplaceWorkflowPage($workflowId: String!) {\n    workflow(workflowId: $workflowId) {\n      workflowId\n      name\n      description\n      category\n      tags\n      currentVersion\n      allowForks\n      viewerFork {\n        forkId\n      }\n      manifest\n      moderation {\n        state\n        reason\n      }\n      owner {\n        userId\n        handle\n      }\n      stats {\n        subscribers\n        forks\n        rating\n        ratingCount\n      }\n      check {\n        status\n        summary\n        findings {\n          rule\n          severity\n          field\n          excerpt\n          message\n        }\n      }\n    }\n    workflowReviews(workflowId: $workflowId, limit: 50) {\n      data {\n        reviewId\n        rating\n        text\n        createdAt\n        updatedAt\n        author {\n          userId\n          handle\n        }\n      }\n    }\n    library(limit: 100) {\n      data {\n        workflowId\n        sourceType\n      }\n    }\n  }\n"): typeof import('./graphql').MarketplaceWorkflowPageDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation Subscribe($workflowId: String!) {\n    addToLibrary(workflowId: $workflowId) {\n      workflowId\n    }\n  }\n"): typeof import('./graphql').SubscribeDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation Fork($workflowId: String!) {\n    forkWorkflow(workflowId: $workflowId) {\n      workflowId\n    }\n  }\n"): typeof import('./graphql').ForkDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation WriteReview($workflowId: String!, $rating: Int!, $text: String!) {\n    createReview(workflowId: $workflowId, rating: $rating, text: $text) {\n      reviewId\n    }\n  }\n"): typeof import('./graphql').WriteReviewDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation EditReview($workflowId: String!, $reviewId: String!, $rating: Int!, $text: String!) {\n    updateReview(workflowId: $workflowId, reviewId: $reviewId, rating: $rating, text: $text) {\n      reviewId\n    }\n  }\n"): typeof import('./graphql').EditReviewDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteReview($workflowId: String!, $reviewId: String!) {\n    deleteReview(workflowId: $workflowId, reviewId: $reviewId) {\n      deleted\n    }\n  }\n"): typeof import('./graphql').DeleteReviewDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation Unsubscribe($workflowId: String!) {\n    removeFromLibrary(workflowId: $workflowId) {\n      workflowId\n    }\n  }\n"): typeof import('./graphql').UnsubscribeDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TeamPage($teamId: String!) {\n    team(teamId: $teamId) {\n      teamId\n      name\n      role\n      billingOwnerId\n      createdAt\n    }\n    teamMembers(teamId: $teamId, limit: 100) {\n      data {\n        userId\n        email\n        displayName\n        role\n        joinedAt\n      }\n    }\n  }\n"): typeof import('./graphql').TeamPageDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TeamInvitations($teamId: String!) {\n    teamInvitations(teamId: $teamId, limit: 100) {\n      data {\n        invitationId\n        email\n        role\n        createdAt\n        expiresAt\n      }\n    }\n  }\n"): typeof import('./graphql').TeamInvitationsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation InviteTeamMember($teamId: String!, $email: String!, $role: String!) {\n    inviteTeamMember(teamId: $teamId, email: $email, role: $role) {\n      email\n      emailSent\n      acceptUrl\n    }\n  }\n"): typeof import('./graphql').InviteTeamMemberDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RevokeTeamInvitation($teamId: String!, $invitationId: String!) {\n    revokeTeamInvitation(teamId: $teamId, invitationId: $invitationId) {\n      deleted\n    }\n  }\n"): typeof import('./graphql').RevokeTeamInvitationDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateTeamMember($teamId: String!, $userId: String!, $role: String!) {\n    updateTeamMember(teamId: $teamId, userId: $userId, role: $role) {\n      role\n    }\n  }\n"): typeof import('./graphql').UpdateTeamMemberDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RemoveTeamMember($teamId: String!, $userId: String!) {\n    removeTeamMember(teamId: $teamId, userId: $userId) {\n      deleted\n    }\n  }\n"): typeof import('./graphql').RemoveTeamMemberDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetTeamBillingOwner($teamId: String!, $userId: String!) {\n    setTeamBillingOwner(teamId: $teamId, userId: $userId) {\n      billingOwnerId\n    }\n  }\n"): typeof import('./graphql').SetTeamBillingOwnerDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Teams {\n    teams(limit: 100) {\n      data {\n        teamId\n        name\n        role\n        createdAt\n      }\n    }\n  }\n"): typeof import('./graphql').TeamsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateTeam($name: String!) {\n    createTeam(name: $name) {\n      teamId\n    }\n  }\n"): typeof import('./graphql').CreateTeamDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query EditWorkflow($workflowId: String!) {\n    workflow(workflowId: $workflowId) {\n      workflowId\n      name\n      description\n      category\n      tags\n      visibility\n      allowForks\n      currentVersion\n      revision\n      digest\n      moderation {\n        state\n        reason\n      }\n      forkedFrom {\n        workflowId\n      }\n      manifestSource {\n        format\n        text\n      }\n    }\n  }\n"): typeof import('./graphql').EditWorkflowDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateWorkflow(\n    $name: String!\n    $description: String\n    $category: String\n    $tags: [String!]\n    $visibility: Visibility\n    $manifest: JSON!\n  ) {\n    createWorkflow(name: $name, description: $description, category: $category, tags: $tags, visibility: $visibility, manifest: $manifest) {\n      workflowId\n    }\n  }\n"): typeof import('./graphql').CreateWorkflowDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateWorkflow(\n    $workflowId: String!\n    $name: String!\n    $description: String\n    $category: String\n    $tags: [String!]\n    $visibility: Visibility\n    $manifest: JSON!\n    $expectedRevision: Int\n  ) {\n    updateWorkflow(\n      workflowId: $workflowId\n      name: $name\n      description: $description\n      category: $category\n      tags: $tags\n      visibility: $visibility\n      manifest: $manifest\n      expectedRevision: $expectedRevision\n    ) {\n      workflowId\n      currentVersion\n      revision\n    }\n  }\n"): typeof import('./graphql').UpdateWorkflowDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteWorkflow($workflowId: String!) {\n    deleteWorkflow(workflowId: $workflowId) {\n      deleted\n    }\n  }\n"): typeof import('./graphql').DeleteWorkflowDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query OwnPublicName {\n    me {\n      displayName\n    }\n  }\n"): typeof import('./graphql').OwnPublicNameDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DeploymentsUsing {\n    deployments(limit: 50) {\n      data {\n        deploymentId\n        name\n        workflows {\n          workflowId\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').DeploymentsUsingDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ManifestDocument($workflowId: String!, $format: String) {\n    workflowManifest(workflowId: $workflowId, format: $format) {\n      body\n      contentType\n    }\n  }\n"): typeof import('./graphql').ManifestDocumentDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Workflows {\n    workflows(limit: 100) {\n      data {\n        workflowId\n        name\n        description\n        visibility\n        currentVersion\n        updatedAt\n        stats {\n          subscribers\n          forks\n          rating\n          ratingCount\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').WorkflowsDocument;


export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
